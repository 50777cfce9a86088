import { STALE_AFTER_MS } from '../coordination/lease.js';
import type { Reader } from '../db/reader.js';
import { runProgress, type RunProgress } from '../sync/run-progress.js';

/** A run recorded `running`, as its last heartbeat left it. */
export interface RunningRun extends RunProgress {
  run_id: number;
  source: string;
  job: string;
  trigger: string;
  /** The stopped run it continues (docs/reliability.md); null for a run started afresh. */
  continues_run_id: number | null;
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
  /** When the rule on dead runs (src/sync/sql/dead-runs.ts) calls it dead unless it beats again: its last heartbeat (or start) plus STALE_AFTER_MS. */
  dead_at: string;
  /**
   * Whether some session holds its job lock, as the same look at pg_locks saw it. False for a run
   * whose process was killed or cut off: it is shown running, with when it is taken for dead,
   * until its heartbeat is old enough for the rule (its process may still be working within its lease).
   */
  lock_held: boolean;
}

/**
 * The runs recorded `running` (of `sources`, or of every source when null), newest first, with
 * what their heartbeats wrote: counts so far, scopes done and known, and the per-table summary.
 * Elapsed time is to the last heartbeat (or now, before the first), on the database's clock like
 * the heartbeat itself. The partial index on running runs makes it a lookup of a few rows (dead
 * processes' runs get marked abandoned), however long the history.
 */
export async function runningRuns(
  db: Reader,
  sources: readonly string[] | null,
  lockHeld: (source: string, job: string) => boolean,
  staleAfterMs = STALE_AFTER_MS,
): Promise<RunningRun[]> {
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
    continues_run_id: number | null;
    dead_at: Date;
  }>(
    `SELECT r.run_id::int, r.source, r.job, trigger, started_at, pid, host, heartbeat_at, requests, retries, continues_run_id::int,
            rows_inserted + rows_updated + rows_deleted AS rows_written, scopes_done, scopes_total,
            extract(epoch FROM coalesce(heartbeat_at, now()) - started_at)::float8 * 1000 AS elapsed_ms,
            coalesce(heartbeat_at, started_at) + make_interval(secs => $2::double precision / 1000) AS dead_at,
            (SELECT array_agg(t.key ORDER BY t.key)
               FROM jsonb_each(CASE WHEN jsonb_typeof(summary -> 'tables') = 'object' THEN summary -> 'tables' ELSE '{}'::jsonb END) t
              WHERE coalesce((t.value ->> 'inserted')::int, 0) + coalesce((t.value ->> 'updated')::int, 0)
                  + coalesce((t.value ->> 'deleted')::int, 0) > 0) AS tables_changed
       FROM pitwall.sync_runs r
      WHERE r.status = 'running' AND ($1::text[] IS NULL OR r.source = ANY($1::text[])) ORDER BY r.run_id DESC`,
    [sources === null ? null : [...sources], staleAfterMs],
  );
  return rows.map((r) => ({
    run_id: r.run_id,
    source: r.source,
    job: r.job,
    trigger: r.trigger,
    continues_run_id: r.continues_run_id,
    started_at: r.started_at.toISOString(),
    worker: `${r.pid ?? '?'}@${r.host ?? '?'}`,
    heartbeat_at: r.heartbeat_at?.toISOString() ?? null,
    requests: r.requests,
    retries: r.retries,
    rows_written: r.rows_written,
    tables_changed: r.tables_changed ?? [],
    dead_at: r.dead_at.toISOString(),
    lock_held: lockHeld(r.source, r.job),
    ...runProgress(r.scopes_done, r.scopes_total, r.elapsed_ms),
  }));
}

/**
 * What is ahead of a running run, for a person: its ETA; or, when no session holds its lock (its
 * process was killed or cut off), that it has stopped and when the rule takes it for dead.
 */
export function runOutlook(r: Pick<RunningRun, 'eta' | 'eta_seconds' | 'lock_held' | 'dead_at'>, timeLeft: (seconds: number) => string): string {
  if (!r.lock_held) return `its process holds no lock (killed or cut off): abandoned at ${r.dead_at} unless it beats again`;
  if (r.eta === 'estimated') return timeLeft(r.eta_seconds ?? 0);
  return r.eta === 'estimating' ? 'estimating' : 'no scope known yet';
}
