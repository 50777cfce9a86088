import type { Reader } from '../db/reader.js';
import { JOB_NAMES } from '../sync/jobs.js';

/**
 * The reads behind `pitwall status` and the worker's status page, each for the sources named (in
 * their order) and each row naming its source. Each is served by an index (source first in every
 * one) or reads a table with one row per request scope (pitwall.sync_state), never a warehouse
 * table. Timestamps come back as PostgreSQL's text, as `status` has always printed them.
 */

export interface JobState {
  source: string;
  job: string;
  run_id: number | null;
  status: string | null;
  started_at: string | null;
  finished_at: string | null;
  last_success_at: string | null;
  error: string | null;
  /** How the latest run that ran to an end ended (not `running`, not `skipped`), and which run that was: how the job stands now. */
  outcome: string | null;
  outcome_run_id: number | null;
}

/**
 * Per source and job, its latest run (whatever the outcome), its latest finished run's outcome and
 * when it last succeeded: sync_runs_job_started_idx, three times per job.
 */
export async function jobStates(db: Reader, sources: readonly string[]): Promise<JobState[]> {
  const { rows } = await db.query<JobState>(
    `SELECT src.source, j.job, r.run_id::int, r.status, r.started_at::text, r.finished_at::text, s.finished_at::text AS last_success_at, r.error,
            o.status AS outcome, o.run_id::int AS outcome_run_id
       FROM unnest($2::text[]) WITH ORDINALITY AS src(source, m)
      CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS j(job, n)
       LEFT JOIN LATERAL (SELECT * FROM pitwall.sync_runs x
                           WHERE x.source = src.source AND x.job = j.job ORDER BY x.started_at DESC, x.run_id DESC LIMIT 1) r ON true
       LEFT JOIN LATERAL (SELECT x.finished_at FROM pitwall.sync_runs x
                           WHERE x.source = src.source AND x.job = j.job AND x.status = 'succeeded' ORDER BY x.started_at DESC LIMIT 1) s ON true
       LEFT JOIN LATERAL (SELECT x.status, x.run_id FROM pitwall.sync_runs x
                           WHERE x.source = src.source AND x.job = j.job AND x.status NOT IN ('running', 'skipped')
                           ORDER BY x.started_at DESC, x.run_id DESC LIMIT 1) o ON true
      ORDER BY src.m, j.n`,
    [JOB_NAMES, sources],
  );
  return rows;
}

export interface RunRow {
  run_id: number;
  source: string;
  job: string;
  trigger: string;
  status: string;
  started_at: string;
  finished_at: string | null;
  /** To the finish, or to now for a run still going. */
  duration_ms: number;
  requests: number;
  retries: number;
  rows_written: number;
  rows_rejected: number;
  error: string | null;
  /** The stopped run this one continues (docs/reliability.md), and the requests of the parts before it. */
  continues_run_id: number | null;
  requests_before: number;
}

/** A run's trigger as the status views show it, with the stopped run it continues. */
export const triggerText = (r: { trigger: string; continues_run_id: number | null }): string =>
  r.continues_run_id === null ? r.trigger : `${r.trigger}, continues run ${r.continues_run_id}`;

const RUN_COLUMNS = `run_id::int, source, job, trigger, status, started_at::text, finished_at::text,
            round(extract(epoch FROM coalesce(finished_at, now()) - started_at) * 1000)::float8 AS duration_ms,
            requests, retries, rows_inserted + rows_updated + rows_deleted AS rows_written, rows_rejected, error,
            continues_run_id::int, requests_before`;

/**
 * The newest `limit` runs of any job of the sources, newest first: a backward scan of the primary
 * key, which skips the runs of other sources on the way.
 */
export async function recentRuns(db: Reader, sources: readonly string[], limit: number): Promise<RunRow[]> {
  // Ordered by the table's column, not the output's run_id (a cast, which no index serves).
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM pitwall.sync_runs x WHERE x.source = ANY($2::text[]) ORDER BY x.run_id DESC LIMIT $1`,
    [limit, sources],
  );
  return rows;
}

/** The newest `limit` runs of each job of each source, by job, then source, newest first: sync_runs_job_started_idx per pair. */
export async function recentRunsPerJob(db: Reader, sources: readonly string[], limit: number): Promise<RunRow[]> {
  const { rows } = await db.query<RunRow>(
    `SELECT r.* FROM unnest($1::text[]) WITH ORDINALITY AS j(job, n)
       CROSS JOIN unnest($3::text[]) WITH ORDINALITY AS src(source, m)
       CROSS JOIN LATERAL (SELECT ${RUN_COLUMNS} FROM pitwall.sync_runs x
                            WHERE x.source = src.source AND x.job = j.job ORDER BY x.started_at DESC, x.run_id DESC LIMIT $2) r
      ORDER BY j.n, src.m, r.run_id DESC`,
    [JOB_NAMES, limit, sources],
  );
  return rows;
}

export interface EndpointState {
  source: string;
  endpoint: string;
  scopes: number;
  ok: number;
  invalid: number;
  error: number;
  last_success_at: string | null;
  /** The newest run that tried one of its scopes, successfully or not. */
  last_run_id: number | null;
}

/** An endpoint's scopes by status, as the status command and page show them. */
export type EndpointCounts = Omit<EndpointState, 'last_run_id'>;

/** Every endpoint's scopes by status, per source: one pass over those sources' sync_state rows (a row per request scope). */
export async function endpointStates(db: Reader, sources: readonly string[]): Promise<EndpointState[]> {
  const { rows } = await db.query<EndpointState>(
    `SELECT source, endpoint, count(*)::int AS scopes,
            count(*) FILTER (WHERE status = 'ok')::int AS ok,
            count(*) FILTER (WHERE status = 'invalid')::int AS invalid,
            count(*) FILTER (WHERE status = 'error')::int AS error,
            max(last_success_at)::text AS last_success_at,
            max(last_run_id)::int AS last_run_id
       FROM pitwall.sync_state WHERE source = ANY($1::text[])
      GROUP BY source, endpoint ORDER BY array_position($1::text[], source), endpoint`,
    [sources],
  );
  return rows;
}

export interface FailingScope {
  source: string;
  endpoint: string;
  params: string;
  status: string;
  last_error: string | null;
  last_attempt_at: string | null;
}

/**
 * The sources' scopes whose last attempt failed, most recent first, at most `perEndpoint` of each
 * endpoint of a source (all of them when omitted).
 */
export async function failingScopes(db: Reader, sources: readonly string[], limit: number, perEndpoint?: number): Promise<FailingScope[]> {
  const { rows } = await db.query<FailingScope>(
    `SELECT source, endpoint, params, status, last_error, last_attempt_at::text
       FROM (SELECT s.*, row_number() OVER (PARTITION BY source, endpoint ORDER BY last_attempt_at DESC NULLS LAST) AS nth
               FROM pitwall.sync_state s WHERE status <> 'ok' AND source = ANY($3::text[])) f
      WHERE $2::int IS NULL OR nth <= $2
      ORDER BY last_attempt_at DESC NULLS LAST LIMIT $1`,
    [limit, perEndpoint ?? null, sources],
  );
  return rows;
}

export interface SetAsideScope {
  source: string;
  endpoint: string;
  params: string;
  failure_stage: string | null;
  failure_kind: string | null;
  /** Runs in a row that failed this way. */
  failed_runs: number;
  /** When runs try it again by themselves (`pitwall sync --retry-set-aside` tries it now). */
  set_aside_until: string;
  last_error: string | null;
}

/**
 * The sources' scopes set aside now (pitwall.sync_state.set_aside_until in the future): the ones
 * that come up again soonest first, at most `limit`.
 */
export async function setAsideScopes(db: Reader, sources: readonly string[], limit: number): Promise<SetAsideScope[]> {
  const { rows } = await db.query<SetAsideScope>(
    `SELECT source, endpoint, params, failure_stage, failure_kind, failed_runs, set_aside_until::text, last_error
       FROM pitwall.sync_state WHERE source = ANY($2::text[]) AND set_aside_until > now()
      ORDER BY set_aside_until, source, endpoint, params LIMIT $1`,
    [limit, sources],
  );
  return rows;
}

/** How many scopes are set aside now, per source, endpoint and kind of failure (the metrics gauge). */
export async function setAsideCounts(db: Reader): Promise<Array<{ source: string; endpoint: string; kind: string; scopes: number }>> {
  const { rows } = await db.query<{ source: string; endpoint: string; kind: string; scopes: number }>(
    `SELECT source, endpoint, coalesce(failure_kind, '') AS kind, count(*)::int AS scopes
       FROM pitwall.sync_state WHERE set_aside_until > now() GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  );
  return rows;
}
