import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { waitForCount } from './process.js';

/**
 * A worker killed (-9) in the middle of its full catch-up and restarted at once, as a service
 * manager does: the job queue hands the dead run's job to the new worker once (a first death is
 * taken to be the machine's, not the run's), and the new worker's catch-up waits for that run
 * instead of starting a walk of its own. When that run's worker dies too, the job is not taken
 * over again at once: the third worker's catch-up backs off, and live and season, which a full
 * that is not running holds up no longer, catch up meanwhile.
 */
describe('a worker that crashes during its catch-up', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  const messagesOf = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { msg: string }).msg);
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 22 })]);
    sim.setFaults({ latencyMs: 400 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('has its job taken over once; crashing again, the full backs off and live and season catch up', async () => {
    const env = {
      DATABASE_URL: db.url,
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '0',
      PITWALL_CONCURRENCY: '1',
      PITWALL_SHUTDOWN_TIMEOUT_MS: '2000',
      PITWALL_CRON_LIVE: '0 0 1 1 *',
      PITWALL_CRON_SEASON: '0 0 1 1 *',
      PITWALL_CRON_FULL: '0 0 1 1 *',
    };
    const crashOnceWalking = async (runs: number) => {
      const worker = startCli(['worker'], env, 180_000);
      // The `runs`-th full walk has reported progress (a heartbeat comes every 5 s).
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND scopes_done > 0`, runs, 90_000);
      worker.child.kill('SIGKILL');
      return messagesOf((await worker.exited).stderr);
    };
    await crashOnceWalking(1);
    // The second worker takes the dead run's job over once it is found dead (15 s after its last
    // heartbeat), and dies in it too. It ran alone: whatever it left its catch-up to ran in it.
    const second = await crashOnceWalking(2);
    expect(second.filter((m) => /another process|going in process/.test(m))).toEqual([]);
    expect(second.some((m) => m.startsWith('catching up: full'))).toBe(true);

    const third = startCli(['worker'], env, 180_000);
    try {
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'abandoned'`, 2, 60_000);
      // The catch-up looks again once live's and season's catch-ups, run one after the other, are done.
      await waitForCount(db.pool, `SELECT count(DISTINCT job)::int AS n FROM pitwall.sync_runs WHERE job <> 'full' AND status = 'succeeded'`, 2, 90_000);
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      third.child.kill('SIGTERM');
    }
    const r = await third.exited;
    expect(r.code).toBe(0);
    // Two full walks, both dead; no third, from the queue or the catch-up.
    const { rows } = await db.pool.query(`SELECT job, trigger, status FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`);
    expect(rows).toEqual([
      { job: 'full', trigger: 'catch-up', status: 'abandoned' },
      { job: 'full', trigger: 'catch-up', status: 'abandoned' },
    ]);
    // Live and season catch up (the second worker may have died in one of them too).
    const { rows: others } = await db.pool.query(`SELECT DISTINCT job FROM pitwall.sync_runs WHERE job <> 'full' AND status = 'succeeded' ORDER BY job`);
    expect(others).toEqual([{ job: 'live' }, { job: 'season' }]);
    const messages = messagesOf(r.stderr);
    expect(messages.some((m) => m.startsWith('catch-up of full backing off after 2 failed catch-up(s)'))).toBe(true);
    // The job waits in the queue, not before the backoff's first step.
    const { rows: queued } = await db.pool.query<{ wait_s: number; locked: boolean }>(
      `SELECT extract(epoch FROM run_at - now())::float8 AS wait_s, locked_at IS NOT NULL AS locked FROM graphile_worker.jobs`,
    );
    expect(queued).toHaveLength(1);
    expect(queued[0]?.locked).toBe(false);
    expect(queued[0]?.wait_s).toBeGreaterThan(60);
  }, 240_000);
});
