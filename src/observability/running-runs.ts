import type pg from 'pg';

import { JOB_NAMES } from '../sync/jobs.js';

import { runProgress, type RunProgress } from './run-progress.js';

/**
 * A running run is among the newest few of its job (one per process that runs it; older ones
 * are dead and get marked abandoned): sync_runs_job_started_idx, not a scan of every run.
 */
const RECENT_PER_JOB = 5;

/** A run recorded `running`, as its last heartbeat left it. */
export interface RunningRun extends RunProgress {
  run_id: number;
  job: string;
  trigger: string;
  started_at: string;
  /** Its last heartbeat; null before the first one. */
  heartbeat_at: string | null;
  requests: number;
  retries: number;
  rows_written: number;
  /** Tables the run has inserted into, updated or deleted from so far (its heartbeat's summary). */
  tables_changed: string[];
}

/**
 * The runs recorded `running`, newest first, with what their heartbeats wrote: counts so far,
 * scopes done and known, and the per-table summary. Elapsed time is to the last heartbeat (or
 * now, before the first), on the database's clock like the heartbeat itself.
 */
export async function runningRuns(db: pg.Pool): Promise<RunningRun[]> {
  const { rows } = await db.query<{
    run_id: number;
    job: string;
    trigger: string;
    started_at: Date;
    heartbeat_at: Date | null;
    requests: number;
    retries: number;
    rows_written: number;
    scopes_done: number;
    scopes_total: number;
    elapsed_ms: number;
    tables_changed: string[] | null;
  }>(
    `SELECT r.run_id::int, r.job, trigger, started_at, heartbeat_at, requests, retries,
            rows_inserted + rows_updated + rows_deleted AS rows_written, scopes_done, scopes_total,
            extract(epoch FROM coalesce(heartbeat_at, now()) - started_at)::float8 * 1000 AS elapsed_ms,
            (SELECT array_agg(t.key ORDER BY t.key)
               FROM jsonb_each(CASE WHEN jsonb_typeof(summary -> 'tables') = 'object' THEN summary -> 'tables' ELSE '{}'::jsonb END) t
              WHERE coalesce((t.value ->> 'inserted')::int, 0) + coalesce((t.value ->> 'updated')::int, 0)
                  + coalesce((t.value ->> 'deleted')::int, 0) > 0) AS tables_changed
       FROM unnest($1::text[]) AS j(job)
       CROSS JOIN LATERAL (SELECT * FROM pitwall.sync_runs x WHERE x.job = j.job ORDER BY x.started_at DESC LIMIT $2) r
      WHERE r.status = 'running' ORDER BY r.run_id DESC`,
    [[...JOB_NAMES, 'rebuild'], RECENT_PER_JOB],
  );
  return rows.map((r) => ({
    run_id: r.run_id,
    job: r.job,
    trigger: r.trigger,
    started_at: r.started_at.toISOString(),
    heartbeat_at: r.heartbeat_at?.toISOString() ?? null,
    requests: r.requests,
    retries: r.retries,
    rows_written: r.rows_written,
    tables_changed: r.tables_changed ?? [],
    ...runProgress(r.scopes_done, r.scopes_total, r.elapsed_ms),
  }));
}
