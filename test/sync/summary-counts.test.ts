import { describe, expect, it } from 'vitest';

import { summaryText } from '../../src/commands/sync-report.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

/**
 * A first sync into an empty warehouse meets each driver in every result, lineup and entry list
 * of theirs: those repeats are "seen again", never "unchanged", which would read as rows that
 * were there before.
 */

const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 11 });

describe('the sync summary of a first sync into an empty warehouse', () => {
  it('counts no row unchanged, and the repeats of a row as seen again', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    const tables = Object.entries(summary.tables);
    expect(tables.filter(([, c]) => (c?.unchanged ?? 0) > 0)).toEqual([]);
    expect(summary.tables.drivers?.seenAgain).toBeGreaterThan(0);
    // Each driver written once: as many inserted as the warehouse holds.
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.drivers');
    expect(summary.tables.drivers?.inserted).toBe(rows[0]?.n);
    expect(summaryText(summary)).toMatch(/^table +inserted +updated +unchanged +seen again +deleted/m);
  });

  it('counts the rows of the next sync after a change as unchanged once, and their repeats as seen again', async () => {
    sim.world.advanceDays(14);
    const summary = await syncOnce(db, sim);
    const drivers = summary.tables.drivers;
    expect(drivers?.unchanged).toBeGreaterThan(0);
    // A driver is judged against the warehouse at most once per run: no more unchanged than stored.
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.drivers');
    expect((drivers?.unchanged ?? 0) + (drivers?.updated ?? 0) + (drivers?.inserted ?? 0)).toBeLessThanOrEqual(rows[0]!.n);
  });
});
