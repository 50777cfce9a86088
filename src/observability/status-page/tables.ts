import { tableMeta } from '../../db/load/table-meta.js';
import type { Reader } from '../../db/reader.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';
import { ENDPOINTS } from '../../sync/endpoints.js';
import type { RunningRun } from '../running-runs.js';
import type { EndpointState, JobState } from '../status-queries.js';

import { ageSeconds, iso } from './time.js';

/**
 * The page's Tables section: per warehouse table (shared by every source), its rows, when it last
 * changed, and whether the runs that feed it, of any source, leave it behind the upstream.
 */

export interface PageTable {
  table: string;
  /** Exact below EXACT_COUNT_BELOW rows; PostgreSQL's estimate above (it counts soft-deleted rows too). Every source's rows. */
  rows: number;
  rows_exact: boolean;
  /** When a run last inserted, updated or soft-deleted one of its rows, within the last CHANGE_WINDOW runs; null when none did. */
  last_change_at: string | null;
  /** The endpoints whose responses write it. */
  fed_by: string[];
  /** When one of those endpoints last answered successfully, for any source (changed or not): the data was current then. */
  checked_at: string | null;
  checked_age_seconds: number | null;
  /**
   * The source and job of the newest run that tried a scope of those endpoints (successfully or
   * not), and how that source's job's latest run ended.
   */
  last_source: string | null;
  last_job: string | null;
  job_last_status: string | null;
  /** Scopes of those endpoints whose last attempt failed (invalid or error), over every source shown. */
  failing_scopes: number;
  /** Some of its scopes are failing, or the job that feeds it failed since: the table may lag what the upstream has now. */
  behind: boolean;
  /** The running run that has changed rows of it so far; null when none has. */
  changing_in_run: number | null;
}

const EXACT_COUNT_BELOW = 20_000;
/** How far back `last_change_at` looks, in runs: a bounded scan of sync_runs whatever its size. */
export const CHANGE_WINDOW = 500;
/** Outcomes of a job's latest run after which what it feeds may lag the upstream (not `skipped`: another process ran it). */
const BEHIND: ReadonlySet<string> = new Set(['failed', 'interrupted', 'abandoned']);

/** The tables each endpoint writes, turned around: which endpoints feed a table. */
function feedersByTable(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of ENDPOINTS) for (const t of e.tables) out.set(t, [...(out.get(t) ?? []), e.name]);
  return out;
}

export async function tableRows(db: Reader, tables: readonly WarehouseTableName[]): Promise<Map<string, { rows: number; exact: boolean }>> {
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
export async function lastChanges(db: Reader): Promise<Map<string, string>> {
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

/** The runs the endpoints' scopes were last tried by, with their source and job. */
export async function runsOf(db: Reader, runIds: readonly number[]): Promise<Map<number, { source: string; job: string }>> {
  if (runIds.length === 0) return new Map();
  const { rows } = await db.query<{ run_id: number; source: string; job: string }>(
    `SELECT run_id::int, source, job FROM pitwall.sync_runs WHERE run_id = ANY($1::bigint[])`,
    [runIds],
  );
  return new Map(rows.map((r) => [r.run_id, { source: r.source, job: r.job }]));
}

export interface TableInputs {
  tables: readonly WarehouseTableName[];
  rows: Map<string, { rows: number; exact: boolean }>;
  changes: Map<string, string>;
  endpoints: readonly EndpointState[];
  jobs: readonly JobState[];
  /** The source and job of each run an endpoint's scopes were last tried by. */
  runs: Map<number, { source: string; job: string }>;
  running: readonly RunningRun[];
  now: number;
}

/** Each table's row of the page, from what the page read. */
export function pageTables(input: TableInputs): PageTable[] {
  const fedBy = feedersByTable();
  const lastStatus = new Map(input.jobs.map((j) => [`${j.source}\u0000${j.job}`, j.status]));
  return input.tables.map((table) => {
    const feeders = fedBy.get(table) ?? [];
    const feeding = input.endpoints.filter((e) => feeders.includes(e.endpoint));
    const newestFirst = (a: string | null, b: string | null) => Date.parse(iso(b) ?? '') - Date.parse(iso(a) ?? '');
    const checked = feeding.filter((e) => e.last_success_at !== null).sort((a, b) => newestFirst(a.last_success_at, b.last_success_at))[0];
    const checkedAt = checked ? iso(checked.last_success_at) : null;
    const lastRun = input.runs.get(Math.max(0, ...feeding.map((e) => e.last_run_id ?? 0))) ?? null;
    const failingScopes = feeding.reduce((n, e) => n + e.invalid + e.error, 0);
    const jobStatus = lastRun ? (lastStatus.get(`${lastRun.source}\u0000${lastRun.job}`) ?? null) : null;
    const count = input.rows.get(table) ?? { rows: 0, exact: false };
    return {
      table,
      rows: count.rows,
      rows_exact: count.exact,
      last_change_at: iso(input.changes.get(table) ?? null),
      fed_by: feeders,
      checked_at: checkedAt,
      checked_age_seconds: ageSeconds(checkedAt, input.now),
      last_source: lastRun?.source ?? null,
      last_job: lastRun?.job ?? null,
      job_last_status: jobStatus,
      failing_scopes: failingScopes,
      behind: failingScopes > 0 || (jobStatus !== null && BEHIND.has(jobStatus)),
      changing_in_run: input.running.find((r) => r.tables_changed.includes(table))?.run_id ?? null,
    };
  });
}
