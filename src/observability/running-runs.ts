import type pg from 'pg';

import { runProgress, type RunProgress } from './run-progress.js';

/** A run recorded `running`, as its last heartbeat left it. */
export interface RunningRun extends RunProgress {
  run_id: number;
  source: string;
  job: string;
  trigger: string;
  started_at: string;
  /** The process running it, `pid@host`. */
  worker: string;
  /** Its last heartbeat; null before the first one. */
  heartbeat_at: string | null;
  requests: number;
  retries: number;
  rows_written: number;
  /** Tables the run has inserted into, updated or deleted from so far (its heartbeat's summary). */
  tables_changed: string[];
}

/**
 * The runs recorded `running` (of `sources`, or of every source when null), newest first, with
 * what their heartbeats wrote: counts so far, scopes done and known, and the per-table summary.
 * Elapsed time is to the last heartbeat (or now, before the first), on the database's clock like
 * the heartbeat itself. The partial index on running runs makes it a lookup of a few rows (dead
 * processes' runs get marked abandoned), however long the history.
 */
export async function runningRuns(db: pg.Pool, sources: readonly string[] | null = null): Promise<RunningRun[]> {
  const { rows } = await db.query<{
    run_id: number;
    source: string;
    job: string;
    trigger: string;
    started_at: Date;
    pid: number | null;
    host: string | null;
    heartbeat_at: Date | null;
    requests: number;
    retries: number;
    rows_written: number;
    scopes_done: number;
    scopes_total: number;
    elapsed_ms: number;
    tables_changed: string[] | null;
  }>(
    `SELECT r.run_id::int, r.source, r.job, trigger, started_at, pid, host, heartbeat_at, requests, retries,
            rows_inserted + rows_updated + rows_deleted AS rows_written, scopes_done, scopes_total,
            extract(epoch FROM coalesce(heartbeat_at, now()) - started_at)::float8 * 1000 AS elapsed_ms,
            (SELECT array_agg(t.key ORDER BY t.key)
               FROM jsonb_each(CASE WHEN jsonb_typeof(summary -> 'tables') = 'object' THEN summary -> 'tables' ELSE '{}'::jsonb END) t
              WHERE coalesce((t.value ->> 'inserted')::int, 0) + coalesce((t.value ->> 'updated')::int, 0)
                  + coalesce((t.value ->> 'deleted')::int, 0) > 0) AS tables_changed
       FROM pitwall.sync_runs r
      WHERE r.status = 'running' AND ($1::text[] IS NULL OR r.source = ANY($1::text[])) ORDER BY r.run_id DESC`,
    [sources === null ? null : [...sources]],
  );
  return rows.map((r) => ({
    run_id: r.run_id,
    source: r.source,
    job: r.job,
    trigger: r.trigger,
    started_at: r.started_at.toISOString(),
    worker: `${r.pid ?? '?'}@${r.host ?? '?'}`,
    heartbeat_at: r.heartbeat_at?.toISOString() ?? null,
    requests: r.requests,
    retries: r.retries,
    rows_written: r.rows_written,
    tables_changed: r.tables_changed ?? [],
    ...runProgress(r.scopes_done, r.scopes_total, r.elapsed_ms),
  }));
}
