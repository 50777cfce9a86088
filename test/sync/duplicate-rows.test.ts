import type pg from 'pg';
import { describe, expect, it } from 'vitest';

import { loadStatus, statusText } from '../../src/commands/status-report.js';
import { summaryText } from '../../src/commands/sync-report.js';
import { decompressBody } from '../../src/sync/kept-body.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

type Race = { Results?: unknown[]; Lineup?: unknown[] };
type Klass = { Races?: Race[]; Entries?: unknown[] };

/** Items of `list` the kept bodies of `endpoint` hold: what the upstream sent, copies included. */
async function sent(pool: pg.Pool, endpoint: string, list: (k: Klass) => unknown[]): Promise<number> {
  const { rows } = await pool.query<{ body: Buffer; encoding: string }>(`SELECT body, encoding FROM pitwall.responses WHERE endpoint = $1`, [endpoint]);
  let n = 0;
  for (const r of rows) for (const k of (JSON.parse(await decompressBody(r.body, r.encoding)) as { Classes: Klass[] }).Classes) n += list(k).length;
  return n;
}

describe('a sync of an upstream that lists some items twice', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5, quirks: { duplicateRows: 0.05 } });

  it('loads each item once, equal to the truth value by value, and counts the copies per table', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});

    const truth = await fetchTruth(sim.url);
    const copies = {
      results: (await sent(db.pool, 'results', (k) => (k.Races ?? []).flatMap((r) => r.Results ?? []))) - truth.results.length,
      lineups: (await sent(db.pool, 'lineups', (k) => (k.Races ?? []).flatMap((r) => r.Lineup ?? []))) - truth.lineups.length,
      entry_list: (await sent(db.pool, 'entry_list', (k) => k.Entries ?? [])) - truth.entry_list.length,
    };
    expect(copies.results).toBeGreaterThan(0);
    for (const [table, n] of Object.entries(copies)) expect(summary.tables[table]?.duplicates, table).toBe(n);
    expect(summaryText(summary)).toMatch(new RegExp(`^results(\\s+\\d+){7}\\s+${copies.results}$`, 'm'));

    // Every copy is kept, none counted as rejected; status names the run and its counts.
    const kept = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.rejects WHERE reason LIKE 'duplicate of item %' AND run_id = $1`, [summary.runId]);
    expect(kept.rows[0].n).toBe(copies.results + copies.lineups + copies.entry_list);
    expect(summary.tables.results?.rejected).toBe(0);
    const [status] = await loadStatus(db.pool);
    expect(status?.duplicates.run).toEqual({ run_id: summary.runId, job: 'full', tables: Object.fromEntries(Object.entries(copies).filter(([, n]) => n > 0)) });
    expect(statusText(status!)).toContain(`Duplicates: run ${summary.runId} (full) loaded once ${kept.rows[0].n} item(s)`);
  });
});
