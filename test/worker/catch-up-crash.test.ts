import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { waitForCount } from './process.js';

/**
 * A worker killed (-9) in the middle of its full catch-up and restarted at once, as a service
 * manager does: the new worker does not start the full walk again, neither over the dead run
 * (its heartbeat still fresh) nor once that run is marked abandoned (the backoff begins); live
 * and season, which a full that is not running holds up no longer, catch up meanwhile.
 */
describe('a worker that crashes during its catch-up', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 22 })]);
    sim.setFaults({ latencyMs: 400 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('is restarted without walking again: the dead run counts as a failed catch-up and full backs off', async () => {
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
    const first = startCli(['worker'], env, 120_000);
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running' AND scopes_done > 0`, 1, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startCli(['worker'], env, 120_000);
    try {
      // Marked abandoned once its heartbeat is 15 s old; the second worker's look after that counts it failed.
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'abandoned'`, 1, 60_000);
      // The catch-up looks again once live's and season's catch-ups, run one after the other, are done.
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job <> 'full' AND status <> 'running'`, 2, 60_000);
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      second.child.kill('SIGTERM');
    }
    const r = await second.exited;
    expect(r.code).toBe(0);
    // One full walk, the dead one; live and season, held up by no full, catch up on their own.
    const { rows } = await db.pool.query(`SELECT job, trigger, status FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`);
    expect(rows).toEqual([{ job: 'full', trigger: 'catch-up', status: 'abandoned' }]);
    const messages = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages.some((m) => m.startsWith('catch-up of full backing off after 1 failed catch-up(s)'))).toBe(true);
  });
});
