import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

describe('two processes started at once on the same job', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 8 })]);
    // ~110 requests at 4 at a time and 200 ms each: a run of ~5 s, far longer than the two start-ups differ.
    sim.setFaults({ latencyMs: 200 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('run once: one process syncs, the other records a skipped run and exits 3', async () => {
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    const results = await Promise.all([runCli(['sync', '--job', 'full'], env), runCli(['sync', '--job', 'full'], env)]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 3]);
    const { rows } = await db.pool.query(`SELECT job, status FROM pitwall.sync_runs ORDER BY status`);
    expect(rows).toEqual([
      { job: 'full', status: 'skipped' },
      { job: 'full', status: 'succeeded' },
    ]);
    expect(Object.values(sim.requests().byPath).every((n) => n === 1)).toBe(true);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
