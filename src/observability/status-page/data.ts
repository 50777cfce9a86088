import type pg from 'pg';

import { tableMeta } from '../../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';
import { redact } from '../../secrets.js';
import type { Shapes } from '../../shapes/overrides.js';
import { ENDPOINTS } from '../../sync/endpoints.js';
import { loadDrift } from '../../sync/shape/load.js';
import { driftCounts, type DriftKind } from '../../sync/shape/report.js';
import { markDeadRuns } from '../../sync/sql/dead-runs.js';
import { runningRuns, type RunningRun } from '../running-runs.js';
import { endpointStates, failingScopes, jobStates, recentRuns, recentRunsPerJob, type EndpointCounts, type FailingScope, type RunRow } from '../status-queries.js';

/** What `/` shows and `/status.json` returns. Timestamps are ISO 8601 (UTC); ages are seconds at `generated_at`. */
export interface StatusPageData {
  generated_at: string;
  jobs: Array<{ job: string; last_run_id: number | null; last_status: string | null; last_started_at: string | null; last_success_at: string | null; last_success_age_seconds: number | null }>;
  /** Runs going now, with their progress as their last heartbeat left it. */
  running: RunningRun[];
  /** When each job's schedule fires next in this worker (ISO); null once it stopped. */
  next_runs: Record<string, string | null>;
  /** The newest runs of any job, newest first. */
  runs: PageRun[];
  /** Per job, its newest runs, newest first (the duration charts). */
  runs_per_job: Record<string, PageRun[]>;
  endpoints: PageEndpoint[];
  tables: PageTable[];
  /** Whether pitwall.shape_paths has rows; until it does, `drift` is null on every endpoint. */
  drift_recorded: boolean;
  /** Modelled fields the upstream stopped sending (or never sent beside a likely new name), until they come back. */
  missing_fields: MissingField[];
}

export interface MissingField {
  endpoint: string;
  path: string;
  /** The run that found every item without it. */
  since_run_id: number;
}

/** Fields pitwall.shape_paths marks missing: a run found every object able to hold them without them. */
async function missingFields(db: pg.Pool): Promise<MissingField[]> {
  const { rows } = await db.query<MissingField>(
    `SELECT endpoint, path, missing_since_run_id::int AS since_run_id FROM pitwall.shape_paths
      WHERE missing_since_run_id IS NOT NULL ORDER BY endpoint, path`,
  );
  return rows;
}

/** A run as the page shows it: times as ISO text, the error masked. */
export type PageRun = RunRow;

export interface PageEndpoint extends EndpointCounts {
  last_success_age_seconds: number | null;
  /** Items refused by validation, every run so far. */
  items_rejected: number;
  /** Failing scopes, most recent first, at most FAILING_PER_ENDPOINT. */
  failing: Array<Omit<FailingScope, 'endpoint'>>;
  /** The shape report's counts, as `pitwall drift`, `status` and the metrics gauge give them. */
  drift: Record<DriftKind, number> | null;
}

export interface PageTable {
  table: string;
  /** Exact below EXACT_COUNT_BELOW rows; PostgreSQL's estimate above (it counts soft-deleted rows too). */
  rows: number;
  rows_exact: boolean;
  /** When a run last inserted, updated or soft-deleted one of its rows, within the last CHANGE_WINDOW runs; null when none did. */
  last_change_at: string | null;
  /** The endpoints whose responses write it. */
  fed_by: string[];
  /** When one of those endpoints last answered successfully (changed or not): the data was current then. */
  checked_at: string | null;
  checked_age_seconds: number | null;
  /** The job of the newest run that tried a scope of those endpoints (successfully or not), and how that job's latest run ended. */
  last_job: string | null;
  job_last_status: string | null;
  /** Scopes of those endpoints whose last attempt failed (invalid or error). */
  failing_scopes: number;
  /** Some of its scopes are failing, or the job that feeds it failed since: the table may lag what the upstream has now. */
  behind: boolean;
  /** The running run that has changed rows of it so far; null when none has. */
  changing_in_run: number | null;
}

export interface StatusPageOptions {
  /** Strings never to show (the API key, the database password): error texts are redacted with them. */
  secrets: readonly string[];
  /** How many runs the table and charts show; default 30. */
  runs?: number;
  /** The worker's scheduler's next fire times; none outside a worker. */
  nextRuns?: () => Partial<Record<string, string | null>>;
  /** The `PITWALL_SHAPES` file the worker applies: its aliases count as modelled in the drift counts. */
  shapes?: Shapes | null;
}

const FAILING_PER_ENDPOINT = 5;
const EXACT_COUNT_BELOW = 20_000;
/** How far back `last_change_at` looks, in runs: a bounded scan of sync_runs whatever its size. */
export const CHANGE_WINDOW = 500;
/** Outcomes of a job's latest run after which what it feeds may lag the upstream (not `skipped`: another process ran it). */
const BEHIND: ReadonlySet<string> = new Set(['failed', 'interrupted', 'abandoned']);

/** PostgreSQL's timestamptz text as ISO 8601 in UTC. */
function iso(text: string): string;
function iso(text: string | null): string | null;
function iso(text: string | null): string | null {
  if (text === null) return null;
  const t = new Date(text);
  return Number.isNaN(t.getTime()) ? text : t.toISOString();
}

const ageSeconds = (at: string | null, now: number) => (at === null ? null : Math.max(0, Math.round((now - Date.parse(at)) / 1000)));

/** The tables each endpoint writes, turned around: which endpoints feed a table. */
function feeders(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of ENDPOINTS) for (const t of e.tables) out.set(t, [...(out.get(t) ?? []), e.name]);
  return out;
}

async function tableRows(db: pg.Pool, tables: readonly WarehouseTableName[]): Promise<Map<string, { rows: number; exact: boolean }>> {
  // Two cheap estimates: reltuples (as of the last VACUUM/ANALYZE) and the live-tuple count the
  // statistics system keeps per commit; the larger one is the less stale after a big load.
  const { rows } = await db.query<{ n: number; estimate: number }>(
    `SELECT t.n::int, greatest(c.reltuples, coalesce(s.n_live_tup, 0), 0)::float8 AS estimate
       FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n)
       JOIN pg_class c ON c.oid = to_regclass(t.name)
       LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid`,
    [tables.map((t) => tableMeta(warehouseTables[t]).qualifiedName)],
  );
  const out = new Map<string, { rows: number; exact: boolean }>();
  const small: WarehouseTableName[] = [];
  for (const r of rows) {
    const table = tables[r.n - 1];
    if (!table) continue;
    // Small by the estimate, so an exact count is cheap; and estimates of small tables are the
    // ones most often off (none yet right after the first load).
    if (r.estimate < EXACT_COUNT_BELOW) small.push(table);
    else out.set(table, { rows: Math.round(r.estimate), exact: false });
  }
  if (small.length === 0) return out;
  // One statement for all of them: the page shares the worker's pool with the syncs.
  const exact = await db.query<{ n: number; rows: number }>(
    small.map((t, i) => `SELECT ${i} AS n, count(*)::float8 AS rows FROM ${tableMeta(warehouseTables[t]).qualifiedName}`).join(' UNION ALL '),
  );
  for (const r of exact.rows) out.set(small[r.n]!, { rows: r.rows, exact: true });
  return out;
}

/**
 * When each table last changed, from the runs' own summaries (per-table inserted, updated and
 * deleted counts) over the newest CHANGE_WINDOW runs: a backward scan of sync_runs' primary key,
 * instead of max(_synced_at), which no index serves and which reads every row of a big table.
 */
async function lastChanges(db: pg.Pool): Promise<Map<string, string>> {
  const { rows } = await db.query<{ table: string; at: string }>(
    `SELECT t.key AS "table", max(r.finished_at)::text AS at
       FROM (SELECT finished_at, summary FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT $1) r
       CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(r.summary -> 'tables') = 'object' THEN r.summary -> 'tables' ELSE '{}'::jsonb END) t
      WHERE r.finished_at IS NOT NULL
        AND coalesce((t.value ->> 'inserted')::int, 0) + coalesce((t.value ->> 'updated')::int, 0) + coalesce((t.value ->> 'deleted')::int, 0) > 0
      GROUP BY t.key`,
    [CHANGE_WINDOW],
  );
  return new Map(rows.map((r) => [r.table, r.at]));
}

async function rejectsPerEndpoint(db: pg.Pool): Promise<Map<string, number>> {
  const { rows } = await db.query<{ endpoint: string; n: number }>(`SELECT endpoint, count(*)::int AS n FROM pitwall.rejects GROUP BY endpoint`);
  return new Map(rows.map((r) => [r.endpoint, r.n]));
}

/**
 * Everything the status page shows, read in a handful of statements. Read-only, and nothing of
 * the HTTP request reaches it. Every error text is redacted with `secrets` here, before either
 * rendering sees it.
 */
export async function loadStatusPage(db: pg.Pool, options: StatusPageOptions): Promise<StatusPageData> {
  // A run whose process died shows as abandoned, not running, whoever looks first.
  await markDeadRuns(db);
  const limit = options.runs ?? 30;
  const clean = (text: string | null) => (text === null ? null : redact(text, options.secrets));
  const run = (r: RunRow): PageRun => ({ ...r, started_at: iso(r.started_at), finished_at: iso(r.finished_at), error: clean(r.error) });
  const tables = Object.keys(warehouseTables) as WarehouseTableName[];

  const [jobs, running, runs, perJob, endpoints, failing, rejected, drift, rows, changes, missing] = await Promise.all([
    jobStates(db),
    runningRuns(db),
    recentRuns(db, limit),
    recentRunsPerJob(db, limit),
    endpointStates(db),
    failingScopes(db, 1000, FAILING_PER_ENDPOINT),
    rejectsPerEndpoint(db),
    loadDrift(db, options.shapes ?? null).then(driftCounts),
    tableRows(db, tables),
    lastChanges(db),
    missingFields(db),
  ]);
  const now = Date.now();

  const runJobs = new Map<number, string>();
  for (const r of [...runs, ...perJob]) runJobs.set(r.run_id, r.job);
  const checkedRunIds = endpoints.map((e) => e.last_run_id).filter((id): id is number => id !== null && !runJobs.has(id));
  if (checkedRunIds.length) {
    const { rows: older } = await db.query<{ run_id: number; job: string }>(
      `SELECT run_id::int, job FROM pitwall.sync_runs WHERE run_id = ANY($1::bigint[])`,
      [checkedRunIds],
    );
    for (const r of older) runJobs.set(r.run_id, r.job);
  }
  const lastStatus = new Map(jobs.map((j) => [j.job, j.status]));

  const pageEndpoints: PageEndpoint[] = endpoints.map(({ last_run_id: _run, ...e }) => ({
    ...e,
    last_success_at: iso(e.last_success_at),
    last_success_age_seconds: ageSeconds(iso(e.last_success_at), now),
    items_rejected: rejected.get(e.endpoint) ?? 0,
    failing: failing
      .filter((f) => f.endpoint === e.endpoint)
      .map((f) => ({ params: f.params, status: f.status, last_error: clean(f.last_error), last_attempt_at: iso(f.last_attempt_at) })),
    drift: drift[e.endpoint] ?? null,
  }));

  const fedBy = feeders();
  const pageTables: PageTable[] = tables.map((table) => {
    const sources = fedBy.get(table) ?? [];
    const feeding = endpoints.filter((e) => sources.includes(e.endpoint));
    const newestFirst = (a: string | null, b: string | null) => Date.parse(iso(b) ?? '') - Date.parse(iso(a) ?? '');
    const checked = feeding.filter((e) => e.last_success_at !== null).sort((a, b) => newestFirst(a.last_success_at, b.last_success_at))[0];
    const checkedAt = checked ? iso(checked.last_success_at) : null;
    const lastRun = Math.max(0, ...feeding.map((e) => e.last_run_id ?? 0));
    const job = runJobs.get(lastRun) ?? null;
    const failingScopes = feeding.reduce((n, e) => n + e.invalid + e.error, 0);
    const jobStatus = job ? (lastStatus.get(job) ?? null) : null;
    const count = rows.get(table) ?? { rows: 0, exact: false };
    return {
      table,
      rows: count.rows,
      rows_exact: count.exact,
      last_change_at: iso(changes.get(table) ?? null),
      fed_by: sources,
      checked_at: checkedAt,
      checked_age_seconds: ageSeconds(checkedAt, now),
      last_job: job,
      job_last_status: jobStatus,
      failing_scopes: failingScopes,
      behind: failingScopes > 0 || (jobStatus !== null && BEHIND.has(jobStatus)),
      changing_in_run: running.find((r) => r.tables_changed.includes(table))?.run_id ?? null,
    };
  });

  return {
    generated_at: new Date(now).toISOString(),
    jobs: jobs.map((j) => ({
      job: j.job,
      last_run_id: j.run_id,
      last_status: j.status,
      last_started_at: iso(j.started_at),
      last_success_at: iso(j.last_success_at),
      last_success_age_seconds: ageSeconds(iso(j.last_success_at), now),
    })),
    running,
    next_runs: Object.fromEntries(Object.entries(options.nextRuns?.() ?? {}).map(([job, at]) => [job, at ?? null])),
    runs: runs.map(run),
    runs_per_job: Object.fromEntries(jobs.map((j) => [j.job, perJob.filter((r) => r.job === j.job).map(run)])),
    endpoints: pageEndpoints,
    tables: pageTables,
    drift_recorded: Object.keys(drift).length > 0,
    missing_fields: missing,
  };
}
