import { describe, expect, it } from 'vitest';

import { queueFire, syncQueueName } from '../../src/sync/sql/job-fires.js';
import { HAND_ON_MS, UNSTARTED_JOB_AFTER_MS, UNSTARTED_TAKEOVER_BOUND_MS } from '../../src/worker/queue/engine.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';

import { waitForCount } from './process.js';

const NEVER = '0 0 1 1 *';

/**
 * A worker that died between taking a job and recording its run leaves a job locked by a worker
 * id that no process has any more, and no run to find abandoned. The window is milliseconds wide,
 * so the rows it leaves are written here as graphile-worker's get_job writes them (the job and its
 * queue locked by the worker, the attempt counted), `UNSTARTED_JOB_AFTER_MS` and more in the past.
 * Beside it, a worker that is alive: a job with a running run, and a second job taken as long ago
 * without one (a live worker holds several jobs; graphile-worker unlocks a worker's jobs all
 * together), which must stay where it is.
 */
describe('a job taken by a worker that died before recording its run', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 31 });

  /** Locks job `id` and its queue as graphile-worker does when `worker` takes it, `agoMs` ago. */
  async function takenBy(id: string, worker: string, agoMs: number): Promise<void> {
    const ago = [worker, agoMs / 1000];
    await db.pool.query(
      `UPDATE graphile_worker._private_jobs SET locked_by = $1, locked_at = now() - make_interval(secs => $2), attempts = attempts + 1 WHERE id = $3`,
      [...ago, id],
    );
    await db.pool.query(
      `UPDATE graphile_worker._private_job_queues q SET locked_by = $1, locked_at = now() - make_interval(secs => $2)
        FROM graphile_worker._private_jobs j WHERE j.id = $3 AND q.id = j.job_queue_id`,
      [...ago, id],
    );
  }

  it('is handed to a live worker within the documented bound; a live worker\'s jobs stay with it', async () => {
    const env = {
      DATABASE_URL: db.url,
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '0',
      PITWALL_CRON_LIVE: NEVER,
      PITWALL_CRON_SEASON: NEVER,
      PITWALL_CRON_FULL: NEVER,
    };
    // The job queue's schema, which queueFire below needs before any worker has started.
    expect((await runCli(['migrate'], env)).code).toBe(0);
    // A warehouse synced once, so the worker's start has no full of its own to catch up.
    expect((await runCli(['sync'], env, 120_000)).code).toBe(0);
    const fire = (job: string) => queueFire(db.pool, { source: 'default', job, trigger: 'cron', fire: new Date().toISOString() });
    const stale = UNSTARTED_JOB_AFTER_MS + 5_000;

    // Taken before the manual sync above ran: a run of the job's source and job since it was
    // taken, but not the job's own (its trigger is `manual`).
    const orphan = await fire('full');
    await takenBy(orphan!.id, 'worker-gone', stale);
    // The live worker: its live job's run is running (beating now), its season job not started yet.
    const running = await fire('live');
    const waiting = await fire('season');
    await takenBy(running!.id, 'worker-alive', stale);
    await takenBy(waiting!.id, 'worker-alive', stale);
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (source, job, trigger, status, started_at, heartbeat_at, pid, host)
       VALUES ('default', 'live', 'cron', 'running', now(), now(), 1, 'elsewhere')`,
    );
    // Its run beats as a live run does (every 5 s), so it is never found dead meanwhile.
    const beat = () => db.pool.query(`UPDATE pitwall.sync_runs SET heartbeat_at = now() WHERE status = 'running' AND host = 'elsewhere'`);
    const beating = setInterval(() => void beat().catch(() => undefined), 5_000);

    const worker = startCli(['worker'], env, 180_000);
    let log = '';
    worker.child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    try {
      // A generous wait: the process's start and the sync's length are the machine's, not the bound's.
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND trigger = 'cron' AND status = 'succeeded'`, 1, 2 * UNSTARTED_TAKEOVER_BOUND_MS);
      // The job being long past UNSTARTED_JOB_AFTER_MS when the worker starts, its first sweep
      // finds it: its run starts within a hand-on of the worker's start (its log line's time,
      // written once the job engine and its sweep are running), on the same clock as started_at.
      const startedLine = log.split('\n').find((l) => l.includes('"worker started"'));
      expect(startedLine, log.slice(-2000)).toBeDefined();
      const workerStarted = Date.parse((JSON.parse(startedLine!) as { time: string }).time);
      const { rows: runs } = await db.pool.query<{ started_at: Date }>(`SELECT started_at FROM pitwall.sync_runs WHERE job = 'full' AND trigger = 'cron'`);
      expect(runs).toHaveLength(1);
      expect(runs[0]!.started_at.getTime() - workerStarted).toBeLessThan(HAND_ON_MS);
      const { rows: jobs } = await db.pool.query<{ queue_name: string; locked_by: string | null }>(
        `SELECT queue_name, locked_by FROM graphile_worker.jobs WHERE locked_by IS NOT NULL ORDER BY queue_name`,
      );
      expect(jobs).toEqual([
        { queue_name: syncQueueName('default', 'live'), locked_by: 'worker-alive' },
        { queue_name: syncQueueName('default', 'season'), locked_by: 'worker-alive' },
      ]);
      const { rows: orphans } = await db.pool.query(`SELECT 1 FROM graphile_worker.jobs WHERE id = $1`, [orphan!.id]);
      expect(orphans).toEqual([]);
    } finally {
      clearInterval(beating);
      worker.child.kill('SIGTERM');
    }
    const exit = await worker.exited;
    expect(exit.code, exit.stderr.slice(-2000)).toBe(0);
    const handedBack = exit.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; jobs?: Array<{ worker: string }> })
      .filter((l) => l.msg.startsWith('jobs of dead workers'));
    expect(handedBack.flatMap((l) => l.jobs?.map((j) => j.worker))).toEqual(['worker-gone']);
  }, 240_000);
});
