import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/sync.js';

interface RunRow {
  status: string;
  beat: string | null;
  requests: number;
  rows_inserted: number;
  scopes_done: number;
  scopes_total: number;
  summary: { status: string; tables: Record<string, { inserted: number }> } | null;
}

const RUN_ROW = `SELECT status, heartbeat_at::text AS beat, requests, rows_inserted, scopes_done, scopes_total, summary
                   FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT 1`;

describe('run heartbeat', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 31 })]);
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('writes the figures so far to the running row as the run goes, and the final row keeps them', async () => {
    // Slow responses, so the run lasts many heartbeats.
    sim.setFaults({ latencyMs: 60 });
    const run = runSync({ pool: db.pool, config: testConfig(db, sim), logger: createSilentLogger(), heartbeatMs: 100 }, { job: 'full' });
    let finished = false;
    void run.finally(() => (finished = true));
    const seen: RunRow[] = [];
    while (!finished) {
      const row = (await db.pool.query<RunRow>(RUN_ROW)).rows[0];
      if (row?.status === 'running') seen.push(row);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const summary = await run;
    expect(summary.status).toBe('succeeded');

    const beats = new Set(seen.map((r) => r.beat));
    expect(beats.size).toBeGreaterThan(2);
    const requests = seen.map((r) => r.requests);
    expect(requests).toEqual([...requests].sort((a, b) => a - b));
    const mid = seen.find((r) => r.rows_inserted > 0 && r.requests > 0);
    expect(mid).toBeDefined();
    expect(mid!.scopes_done).toBeGreaterThan(0);
    expect(mid!.scopes_done).toBeLessThanOrEqual(mid!.scopes_total);
    // The running row says which tables the run has changed so far, in the final summary's shape.
    expect(mid!.summary?.status).toBe('running');
    expect(Object.values(mid!.summary?.tables ?? {}).some((t) => t.inserted > 0)).toBe(true);
    expect(mid!.requests).toBeLessThan(summary.requests);

    const last = (await db.pool.query<RunRow>(RUN_ROW)).rows[0]!;
    expect(last).toMatchObject({ status: 'succeeded', requests: summary.requests, scopes_total: last.scopes_done });
    expect(last.scopes_done).toBeGreaterThanOrEqual(mid!.scopes_total);
    const inserted = Object.values(summary.tables).reduce((n, t) => n + (t?.inserted ?? 0), 0);
    expect(last.rows_inserted).toBe(inserted);
    expect(last.summary?.status).toBe('succeeded');
  });
});
