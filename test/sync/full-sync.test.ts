import { describe, expect, it } from 'vitest';

import { rowsWritten } from '../../src/sync/counters.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

const CASES = BACKENDS.flatMap((backend) => (['tiny', 'small'] as const).map((scale) => [scale, backend] as const));

describe.each(CASES)('a full sync at %s scale on %s', (scale, backend) => {
  const { db, sim } = useWarehouse(backend, { scale, seed: 11 });

  it('leaves every table equal to the ground truth, row for row', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    // Every field the declarations model is sent by the simulator: none reads as renamed.
    expect(summary.missingFields).toEqual([]);
    expect(summary.tables.results?.inserted).toBeGreaterThan(0);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('requests no path+query twice in one run', () => {
    const log = sim.requests();
    const repeated = Object.entries(log.byPath).filter(([, n]) => n > 1);
    expect(log.total).toBeGreaterThan(0);
    expect(repeated).toEqual([]);
  });

  it('writes nothing on a second run against an unchanged upstream', async () => {
    sim.resetRequests();
    const second = await syncOnce(db, sim);
    expect(second.status).toBe('succeeded');
    expect(rowsWritten(second.tables)).toBe(0);
    expect(second.scopes.loaded).toBe(0);
    expect(Object.values(sim.requests().byPath).every((n) => n === 1)).toBe(true);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    // Every scope was checked in this run (its unchanged-scope record written in a batch), and
    // carries the digest of its body text, by which the next run recognises it unparsed.
    const { rows } = await db.pool.query<{ scopes: number; this_run: number; text_digests: number }>(
      `SELECT count(*)::int AS scopes, count(*) FILTER (WHERE last_run_id = $1)::int AS this_run,
              count(*) FILTER (WHERE response_hash LIKE 't:%')::int AS text_digests
         FROM pitwall.sync_state`,
      [second.runId],
    );
    expect(rows[0]).toEqual({ scopes: second.requests, this_run: second.requests, text_digests: second.requests });
    expect(second.scopes.unchanged).toBe(second.requests);
  });
});
