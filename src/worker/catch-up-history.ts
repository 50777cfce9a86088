import { hostname } from 'node:os';

import type pg from 'pg';

import { jobLockId, LOCK_NAMESPACE } from '../coordination/lock-ids.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';

import type { CatchUpHistory, RunningRun } from './catch-up-plan.js';

function runningRun(r: { run_id: number; host: string | null; pid: number | null }): RunningRun {
  return { runId: r.run_id, host: r.host, pid: r.pid, here: r.host === hostname() && r.pid === process.pid };
}

/**
 * For one source, each job's last success, its failed or abandoned catch-ups since then, and a run of it still
 * recorded running with whether a session holds its job's lock (a read-only look at pg_locks), in
 * one statement from pitwall.sync_runs: the backoff survives restarts because it is read, not
 * remembered.
 */
export async function catchUpHistory(db: pg.Pool, source: string): Promise<Partial<Record<JobName, CatchUpHistory>>> {
  const { rows } = await db.query<{
    job: string;
    last_success: Date | null;
    failed: number;
    abandoned: number;
    last_failed_at: Date | null;
    running: { run_id: number; host: string | null; pid: number | null; beat: string; lock_held: boolean } | null;
  }>(
    `WITH success AS (
       SELECT job, max(finished_at) AS at FROM pitwall.sync_runs WHERE source = $2 AND status = 'succeeded' GROUP BY job
     ), failed AS (
       SELECT r.job, r.status, COALESCE(r.finished_at, r.started_at) AS at
         FROM pitwall.sync_runs r LEFT JOIN success s USING (job)
        WHERE r.source = $2 AND r.trigger = 'catch-up' AND r.status IN ('failed', 'abandoned') AND (s.at IS NULL OR r.started_at > s.at)
     )
     SELECT j.job, s.at AS last_success, count(f.at)::int AS failed, count(f.at) FILTER (WHERE f.status = 'abandoned')::int AS abandoned, max(f.at) AS last_failed_at,
            (SELECT json_build_object('run_id', x.run_id, 'host', x.host, 'pid', x.pid, 'beat', COALESCE(x.heartbeat_at, x.started_at),
                      'lock_held', EXISTS (SELECT 1 FROM pg_locks l
                                            WHERE l.locktype = 'advisory' AND l.classid = $3::oid AND l.objsubid = 2 AND l.granted
                                              AND l.objid = j.lock_id::oid
                                              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))
               FROM pitwall.sync_runs x
              WHERE x.source = $2 AND x.job = j.job AND x.status = 'running'
              ORDER BY COALESCE(x.heartbeat_at, x.started_at) DESC LIMIT 1) AS running
       FROM unnest($1::text[], $4::bigint[]) AS j(job, lock_id)
       LEFT JOIN success s USING (job)
       LEFT JOIN failed f USING (job)
      GROUP BY j.job, j.lock_id, s.at`,
    [JOB_NAMES, source, LOCK_NAMESPACE, JOB_NAMES.map((job) => jobLockId(source, job) >>> 0)],
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.job,
      {
        failedCatchUps: r.failed,
        abandonedCatchUps: r.abandoned,
        ...(r.last_success ? { lastSuccess: r.last_success } : {}),
        ...(r.last_failed_at ? { lastFailedAt: r.last_failed_at } : {}),
        ...(r.running ? { running: { lastBeatAt: new Date(r.running.beat), lockHeld: r.running.lock_held, run: runningRun(r.running) } } : {}),
      },
    ]),
  );
}
