import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { waitForCount } from './process.js';
import { inconsistentScopes } from './scope-consistency.js';

const DRAIN_ROOM_MS = 45_000;

describe('pitwall worker as a process', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 13 })]);
    sim.setFaults({ latencyMs: 150 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('runs its jobs on schedule, and on SIGTERM drains the run, records it interrupted and exits 0', async () => {
    const cli = startCli(['worker'], {
      DATABASE_URL: db.url,
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '0',
      // So long that a drain of 150 ms requests never reaches it, however busy the machine.
      PITWALL_SHUTDOWN_TIMEOUT_MS: String(DRAIN_ROOM_MS),
      // Six fields, seconds first: `full` starts within a second; the others not today.
      PITWALL_CRON_FULL: '* * * * * *',
      PITWALL_CRON_SEASON: '0 0 1 1 *',
      PITWALL_CRON_LIVE: '0 0 1 1 *',
      // The schedule is what this test watches, not the catch-up at start.
      PITWALL_CATCH_UP: 'off',
    });
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE status = 'ok'`, 10);
    const sent = performance.now();
    cli.child.kill('SIGTERM');
    const r = await cli.exited;
    expect(r.code).toBe(0);
    // The drain ended the run, not the timeout.
    expect(r.exitedAt - sent).toBeLessThan(DRAIN_ROOM_MS);
    const { rows } = await db.pool.query(`SELECT job, trigger, status FROM pitwall.sync_runs ORDER BY run_id`);
    expect(rows).toEqual([{ job: 'full', trigger: 'cron', status: 'interrupted' }]);
    expect((await inconsistentScopes(db.pool, sim.url)).inconsistent).toEqual([]);
    // Every line is JSON (off a terminal) but the CLI's own plain notice of the signal.
    const all = r.stderr.trim().split('\n');
    expect(all.filter((l) => !l.startsWith('{'))).toEqual(['pitwall: SIGTERM received, stopping (send again to exit at once)']);
    const lines = all.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; job?: string; runId?: number });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['worker started', 'worker stopping; draining runs', 'worker stopped']));
    expect(lines.find((l) => l.msg === 'run finished')).toMatchObject({ job: 'full', runId: expect.any(Number) });
  });
});
