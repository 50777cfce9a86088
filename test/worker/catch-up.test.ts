import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

/**
 * The worker's catch-up at start, against sync_runs rows the tests write: which jobs run, with
 * trigger `catch-up`, and the backoff after failed catch-ups. The schedules are set to fire
 * once a year (or less), so nothing but the catch-up runs during a test.
 */
describe('the worker catching up at start', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker | undefined;
  let lines: string[];
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 17 })]);
  });
  beforeEach(async () => {
    lines = [];
    await db.pool.query('TRUNCATE pitwall.sync_runs CASCADE');
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    sim.setFaults({ rate: 0 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  const start = async (env: Record<string, string> = {}) => {
    const config = workerConfig(db, sim, { PITWALL_CATCH_UP: 'on', ...env });
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(l) } });
    worker = createWorker({ pool: db.pool, config, logger, now: simulatorClock(sim) });
    await worker.start();
    return worker;
  };
  const messages = () => lines.map((l) => String((JSON.parse(l) as { msg: unknown }).msg));
  const runs = async () =>
    (await db.pool.query<{ job: string; trigger: string; status: string }>('SELECT job, trigger, status FROM pitwall.sync_runs ORDER BY run_id')).rows;
  const insertRun = (job: string, trigger: string, status: string, finishedAgo: string) =>
    db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, finished_at)
       VALUES ($1, $2, $3, now() - $4::interval - interval '1 second', now() - $4::interval)`,
      [job, trigger, status, finishedAgo],
    );

  it('on an empty warehouse runs full first, which catches live and season up too', async () => {
    await (await start()).caughtUp();
    expect(await runs()).toEqual([{ job: 'full', trigger: 'catch-up', status: 'succeeded' }]);
    const year = new Date().getUTCFullYear();
    expect(messages()).toContain(`catching up: full, schedule last fired ${year}-01-01T00:00:00.000Z`);
  });

  it('runs only the job whose last success is older than its schedule\'s last fire', async () => {
    // full last fired on 29 February 2024 and succeeded after it; live's schedule last fired on
    // 1 January, after live's success and full's.
    const newYear = Date.UTC(new Date().getUTCFullYear(), 0, 1);
    const daysBeforeNewYear = (n: number) => `${Math.round((Date.now() - newYear) / 86_400_000) + n} days`;
    await insertRun('full', 'cron', 'succeeded', daysBeforeNewYear(10));
    await insertRun('season', 'cron', 'succeeded', '1 minute');
    await insertRun('live', 'cron', 'succeeded', daysBeforeNewYear(20));
    await (await start({ PITWALL_CRON_FULL: '0 0 29 2 *' })).caughtUp();
    expect((await runs()).slice(3)).toEqual([{ job: 'live', trigger: 'catch-up', status: 'succeeded' }]);
  });

  it('runs nothing when every job succeeded after its schedule last fired', async () => {
    for (const job of ['full', 'season', 'live']) await insertRun(job, 'cron', 'succeeded', '1 minute');
    await (await start()).caughtUp();
    expect(await runs()).toHaveLength(3);
  });

  it('runs nothing with PITWALL_CATCH_UP=off', async () => {
    await (await start({ PITWALL_CATCH_UP: 'off' })).caughtUp();
    expect(await runs()).toEqual([]);
  });

  it('after a second catch-up in a row left running by a dead process, waits 5 minutes and says until when', async () => {
    await insertRun('season', 'cron', 'succeeded', '1 minute');
    await insertRun('live', 'cron', 'succeeded', '1 minute');
    // One full catch-up died 10 minutes ago; the one after it died 30 s ago (no lock held, the
    // heartbeat stale). The first death is forgiven (the machine's, most likely), the second not.
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, finished_at)
       VALUES ('full', 'catch-up', 'abandoned', now() - interval '11 minutes', now() - interval '10 minutes')`,
    );
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at)
       VALUES ('full', 'catch-up', 'running', now() - interval '1 minute', now() - interval '30 seconds')`,
    );
    const before = Date.now();
    await start();
    await waitFor(() => messages().some((m) => m.startsWith('catch-up of full backing off')));
    const line = messages().find((m) => m.startsWith('catch-up of full backing off')) ?? '';
    expect(line).toMatch(/^catch-up of full backing off after 2 failed catch-up\(s\) since its last success; next try at \S+Z$/);
    const retryAt = Date.parse(line.split(' ').at(-1) ?? '');
    // Five minutes from its last heartbeat.
    expect(retryAt - before).toBeGreaterThan(4 * 60_000);
    expect(retryAt - before).toBeLessThan(5 * 60_000);
    expect((await runs()).map((r) => `${r.job} ${r.status}`)).toEqual(['season succeeded', 'live succeeded', 'full abandoned', 'full abandoned']);
  });

  it('after one catch-up left running by a dead process, runs the full again at once', async () => {
    await insertRun('season', 'cron', 'succeeded', '1 minute');
    await insertRun('live', 'cron', 'succeeded', '1 minute');
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at)
       VALUES ('full', 'catch-up', 'running', now() - interval '1 minute', now() - interval '30 seconds')`,
    );
    await (await start()).caughtUp();
    expect((await runs()).map((r) => `${r.job} ${r.trigger} ${r.status}`)).toEqual([
      'season cron succeeded',
      'live cron succeeded',
      'full catch-up abandoned',
      'full catch-up succeeded',
    ]);
  });

  it('does not start the walk again over a catch-up whose heartbeat is fresh, lock or no lock: its process may be cut off and still within its lease', async () => {
    await insertRun('season', 'cron', 'succeeded', '1 minute');
    await insertRun('live', 'cron', 'succeeded', '1 minute');
    // Beat 2 s ago, its lock free: killed, or cut off from the database and still working.
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at, host, pid)
       VALUES ('full', 'catch-up', 'running', now() - interval '1 minute', now() - interval '2 seconds', 'another-machine', 4242)`,
    );
    await start();
    await waitFor(() => messages().some((m) => m.startsWith('catch-up of full left to its run')));
    expect((await runs()).map((r) => `${r.job} ${r.status}`)).toEqual(['season succeeded', 'live succeeded', 'full running']);
  });

  it('runs a catch-up whose backoff has passed, and backs off twice as long after it fails too', async () => {
    await insertRun('season', 'cron', 'succeeded', '1 minute');
    await insertRun('live', 'cron', 'succeeded', '1 minute');
    await insertRun('full', 'catch-up', 'failed', '6 minutes');
    sim.setFaults({ rate: 1, kinds: ['http500'], retryAfterSeconds: 0 });
    const before = Date.now();
    await start({ PITWALL_MAX_ATTEMPTS: '1', PITWALL_MAX_CONSECUTIVE_FAILURES: '1' });
    await waitFor(() => messages().some((m) => m.startsWith('catch-up of full backing off')));
    expect((await runs()).slice(2)).toEqual([
      { job: 'full', trigger: 'catch-up', status: 'failed' },
      { job: 'full', trigger: 'catch-up', status: 'failed' },
    ]);
    const line = messages().find((m) => m.startsWith('catch-up of full backing off')) ?? '';
    expect(line).toContain('after 2 failed catch-up(s)');
    expect(Date.parse(line.split(' ').at(-1) ?? '') - before).toBeGreaterThan(9 * 60_000);
  });
});

/** Polls a condition of the worker's own log; real time, bounded. */
async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the log line');
    await new Promise((r) => setTimeout(r, 50));
  }
}
