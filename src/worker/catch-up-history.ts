import { hostname } from 'node:os';

import type pg from 'pg';

import { BEAT_MS, STALE_AFTER_MS } from '../coordination/lease.js';
import { goneHere } from '../coordination/local-process.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import { deadRun } from '../sync/sql/dead-runs.js';

import type { CatchUpHistory } from './catch-up-plan.js';

function runningOf(r: { run_id: number; host: string | null; pid: number | null; beat: string; alive: boolean }, going: (runId: number) => boolean): NonNullable<CatchUpHistory['running']> {
  const here = r.host === hostname() && r.pid === process.pid;
  // Another process of this machine that is gone, or a run of this very process that is not going
  // (and beat a while ago: one that has just written its row may not have been counted yet).
  const gone = goneHere(r.host, r.pid) || (here && !going(r.run_id) && Date.now() - new Date(r.beat).getTime() > BEAT_MS);
  return { lastBeatAt: new Date(r.beat), alive: r.alive && !gone, gone, run: { runId: r.run_id, host: r.host, pid: r.pid, here } };
}

/**
 * For one source, each job's last success, its failed or abandoned catch-ups since then (a run the
 * warehouse failed does not count: it is no reason to ask the upstream less), and a run of it
 * still recorded running with whether it is alive by the rule on dead runs, in one statement from
 * pitwall.sync_runs: the backoff survives restarts because it is read, not remembered.
 */
export async function catchUpHistory(db: pg.Pool, source: string, going: (runId: number) => boolean = () => true): Promise<Partial<Record<JobName, CatchUpHistory>>> {
  const { rows } = await db.query<{
    job: string;
    last_success: Date | null;
    failed: number;
    abandoned: number;
    last_failed_at: Date | null;
    running: { run_id: number; host: string | null; pid: number | null; beat: string; alive: boolean } | null;
  }>(
    `WITH success AS (
       SELECT job, max(finished_at) AS at FROM pitwall.sync_runs WHERE source = $2 AND status = 'succeeded' GROUP BY job
     ), failed AS (
       SELECT r.job, r.status, COALESCE(r.finished_at, r.started_at) AS at
         FROM pitwall.sync_runs r LEFT JOIN success s USING (job)
        WHERE r.source = $2 AND r.trigger = 'catch-up' AND r.status IN ('failed', 'abandoned') AND (s.at IS NULL OR r.started_at > s.at)
          AND (r.summary->>'databaseFailure') IS DISTINCT FROM 'true'
     )
     SELECT j.job, s.at AS last_success, count(f.at)::int AS failed, count(f.at) FILTER (WHERE f.status = 'abandoned')::int AS abandoned, max(f.at) AS last_failed_at,
            (SELECT json_build_object('run_id', x.run_id, 'host', x.host, 'pid', x.pid, 'beat', COALESCE(x.heartbeat_at, x.started_at),
                      'alive', NOT (${deadRun('$3', 'x.')}))
               FROM pitwall.sync_runs x
              WHERE x.source = $2 AND x.job = j.job AND x.status = 'running'
              ORDER BY COALESCE(x.heartbeat_at, x.started_at) DESC LIMIT 1) AS running
       FROM unnest($1::text[]) AS j(job)
       LEFT JOIN success s USING (job)
       LEFT JOIN failed f USING (job)
      GROUP BY j.job, s.at`,
    [JOB_NAMES, source, STALE_AFTER_MS],
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.job,
      {
        failedCatchUps: r.failed,
        abandonedCatchUps: r.abandoned,
        ...(r.last_success ? { lastSuccess: r.last_success } : {}),
        ...(r.last_failed_at ? { lastFailedAt: r.last_failed_at } : {}),
        ...(r.running ? { running: runningOf(r.running, going) } : {}),
      },
    ]),
  );
}
