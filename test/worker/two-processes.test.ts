import { describe, expect, it } from 'vitest';

import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, heldUpstream, NEVER_TIMES_OUT, NO_SCHEDULES, stopAll, waitForCount } from './process.js';

describe('two processes started at once on the same job', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 8 });

  it('run once: one process syncs, the other records a skipped run and exits 3', async () => {
    // Whichever process takes the job lock first is held at its first request until the other has
    // been refused, however far apart the two start: they overlap on any machine.
    const gate = await heldUpstream(sim.url);
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: gate.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', ...NEVER_TIMES_OUT };
    const both = Promise.all([runCli(['sync', '--job', 'full'], env), runCli(['sync', '--job', 'full'], env)]);
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'skipped'`, 1);
    gate.release();
    const results = await both;
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

describe('a manual sync of the job a worker is running', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 9 });

  it('records a skipped run and exits 3 while the worker\'s run goes on and succeeds', async () => {
    // The worker's requests are held until the manual sync has been refused: its full is running
    // the whole time, however long the manual sync takes to start.
    const gate = await heldUpstream(sim.url);
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: gate.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    const worker = startCli(['worker'], { ...env, ...NO_SCHEDULES, ...NEVER_TIMES_OUT });
    try {
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`, 1);
      const manual = await runCli(['sync', '--job', 'full'], env);
      expect(manual.code).toBe(3);
      gate.release();
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
    } finally {
      gate.release();
      expect(await stopAll([worker])).toEqual([CLEAN_EXIT]);
    }
    const { rows } = await db.pool.query<{ trigger: string; status: string; pid: number; during: boolean }>(
      `SELECT r.trigger, r.status, r.pid, r.started_at BETWEEN w.started_at AND w.finished_at AS during
         FROM pitwall.sync_runs r, (SELECT started_at, finished_at FROM pitwall.sync_runs WHERE status = 'succeeded') w ORDER BY r.run_id`,
    );
    expect(rows).toEqual([
      { trigger: 'catch-up', status: 'succeeded', pid: worker.child.pid, during: true },
      { trigger: 'manual', status: 'skipped', pid: expect.any(Number), during: true },
    ]);
    // The skipped sync sent nothing: the worker's full asked for every path once.
    expect(Object.values(sim.requests().byPath).every((n) => n === 1)).toBe(true);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
