import type pg from 'pg';

import { nextFire } from '../cron/next-fire.js';
import { tableMeta } from '../db/load/table-meta.js';
import type { Reader } from '../db/reader.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';
import type { SourceOwner } from '../observability/held-locks.js';
import { duplicatesLine, recentDuplicates, type RecentDuplicates } from '../observability/recent-duplicates.js';
import { runOutlook, type RunningRun } from '../observability/running-runs.js';
import {
  endpointStates,
  failingScopes,
  jobStates,
  recentRuns,
  setAsideScopes,
  type EndpointCounts,
  type FailingScope,
  type JobState,
  type RunRow,
  type SetAsideScope,
  triggerText,
} from '../observability/status-queries.js';
import { readSnapshot, runsNow, type Snapshot } from '../observability/status-snapshot.js';
import type { Shapes } from '../shapes/overrides.js';
import { formatSeconds } from '../sync/run-progress.js';
import { loadDrift } from '../sync/shape/load.js';
import { driftCounts, type DriftKind } from '../sync/shape/report.js';
import { noLongerConfigured, type NoLongerConfigured } from '../sync/sql/configured-sources.js';
import { publishedSchedules, type SourceSchedules } from '../sync/sql/source-schedules.js';

import { driftLine } from './drift-report.js';
import { renderTable, wrapText } from './format.js';

/** What `pitwall status` reports of one source; the source is the report's, so no row names it. */
export interface StatusReport {
  /** Per job: its latest run (whatever the outcome) and when it last succeeded. */
  jobs: Array<Omit<JobState, 'source'>>;
  /** The worker that owns the source now (`pid@host`, and since when), or null when none does. */
  owner: SourceOwner | null;
  /** Runs going now (any process), with their progress as their last heartbeat left it. */
  running: Array<Omit<RunningRun, 'source'>>;
  /**
   * When each job's schedule fires next, from the schedules the worker that owns the source
   * recorded when it took it (pitwall.sources.schedules); empty when no worker owns it, or its
   * owner recorded none (a pitwall from before they were recorded).
   */
  next_runs: Record<string, string | null>;
  /** The worker whose schedules `next_runs` are (the owner); null when they are empty. */
  next_runs_of: string | null;
  /** Per warehouse table: when a row's content last changed (newest `_synced_at`); null when empty. */
  freshness: Array<{ table: string; newest_synced_at: string | null }>;
  runs: Array<Pick<RunRow, 'run_id' | 'job' | 'trigger' | 'continues_run_id' | 'status' | 'started_at' | 'finished_at' | 'requests' | 'requests_before' | 'rows_written' | 'error'>>;
  endpoints: Array<Omit<EndpointCounts, 'source'>>;
  failing: Array<Omit<FailingScope, 'source'>>;
  /** Scopes runs skip for now: each failed the same way in two or three runs in a row (src/sync/scope-failure.ts). */
  set_aside: Array<Omit<SetAsideScope, 'source'>>;
  rejects: Array<{ endpoint: string; params: string; reason: string; created_at: string }>;
  /** The shape report in one line, and its path counts per endpoint (see `pitwall drift`). */
  drift: { summary: string; endpoints: Record<string, Record<DriftKind, number>> };
  /** Set when this process's configuration does not name the source: since when none has (pitwall.sources), and whether it was retired. */
  no_longer_configured: NoLongerConfigured | null;
  /** Items listed twice under one parent, as the newest of the last runs that found any counted them. */
  duplicates: { summary: string; run: RecentDuplicates | null };
}

/** A source `pitwall status` reports on, with what this process knows of it. */
export interface StatusSource {
  name: string;
  /** The source's `PITWALL_SHAPES` file: its aliases count as modelled in the drift line. */
  shapes?: Shapes | null;
  /** False for a source only the warehouse knows (PITWALL_SOURCES no longer names it); true when omitted. */
  configured?: boolean;
}

/**
 * Per source, per warehouse table, the newest `_synced_at`: one scan per table whatever the
 * number of sources (no index: on a large warehouse this is the slow part of `status`, seconds
 * rather than milliseconds, which an operator's occasional look can afford).
 */
async function loadFreshness(db: Reader, sources: readonly string[]): Promise<Map<string, StatusReport['freshness']>> {
  const tables = Object.keys(warehouseTables) as WarehouseTableName[];
  const { rows } = await db.query<{ table: string; source: string; newest_synced_at: string }>(
    tables
      .map((t, i) => `SELECT ${i} AS n, '${t}' AS "table", source, max(_synced_at)::text AS newest_synced_at FROM ${tableMeta(warehouseTables[t]).qualifiedName} WHERE source = ANY($1::text[]) GROUP BY source`)
      .join(' UNION ALL ') + ' ORDER BY n',
    [sources],
  );
  const newest = new Map(rows.map((r) => [`${r.source}\u0000${r.table}`, r.newest_synced_at]));
  return new Map(sources.map((source) => [source, tables.map((table) => ({ table, newest_synced_at: newest.get(`${source}\u0000${table}`) ?? null }))]));
}

/**
 * Per source, in the order given: each job's last run, table freshness, last runs, the state of
 * every endpoint's scopes, failing scopes and recent rejects; all of one reading (readSnapshot).
 */
export async function loadStatus(pool: pg.Pool, sources: readonly StatusSource[] = [{ name: DEFAULT_SOURCE }], limit = 10, staleAfterMs?: number): Promise<StatusReport[]> {
  return readSnapshot(
    pool,
    async (snapshot) => {
      const freshness = await loadFreshness(snapshot.db, sources.map((s) => s.name));
      const reports: StatusReport[] = [];
      for (const source of sources) reports.push(await sourceStatus(snapshot, source, freshness.get(source.name) ?? [], limit));
      return reports;
    },
    staleAfterMs,
  );
}

async function sourceStatus(snapshot: Snapshot, source: StatusSource, freshness: StatusReport['freshness'], limit: number): Promise<StatusReport> {
  const { db } = snapshot;
  const only = [source.name];
  const { owners, running } = await runsNow(snapshot, only);
  const rejects = await db.query(
    `SELECT endpoint, params, reason, created_at::text FROM pitwall.rejects WHERE source = $2 ORDER BY reject_id DESC LIMIT $1`,
    [limit, source.name],
  );
  return {
    jobs: (await jobStates(db, only)).map(({ source: _, ...j }) => j),
    owner: owners.get(source.name) ?? null,
    running: running.map(({ source: _, ...r }) => r),
    ...nextRunsOf(owners.get(source.name) ?? null, (await publishedSchedules(db, only)).get(source.name)),
    freshness,
    runs: (await recentRuns(db, only, limit)).map(({ run_id, job, trigger, continues_run_id, status, started_at, finished_at, requests, requests_before, rows_written, error }) => ({
      run_id,
      job,
      trigger,
      continues_run_id,
      status,
      started_at,
      finished_at,
      requests,
      requests_before,
      rows_written,
      error,
    })),
    endpoints: (await endpointStates(db, only)).map(({ source: _, last_run_id: __, ...e }) => e),
    failing: (await failingScopes(db, only, limit)).map(({ source: _, ...f }) => f),
    set_aside: (await setAsideScopes(db, only, limit)).map(({ source: _, ...f }) => f),
    rejects: rejects.rows,
    drift: await loadDrift(db, source.shapes ?? null, only).then((report) => ({ summary: driftLine(report), endpoints: driftCounts(report) })),
    no_longer_configured: source.configured === false ? ((await noLongerConfigured(db, only)).get(source.name) ?? null) : null,
    duplicates: await recentDuplicates(db, source.name, limit).then((run) => ({ summary: duplicatesLine(run, limit), run })),
  };
}

/** When the owner's schedules fire next, if the owner recorded them: schedules another worker recorded are no longer running. */
function nextRunsOf(owner: SourceOwner | null, published: { worker: string; schedules: SourceSchedules } | undefined): Pick<StatusReport, 'next_runs' | 'next_runs_of'> {
  if (!owner || published?.worker !== owner.worker) return { next_runs: {}, next_runs_of: null };
  const { timezone, ...crons } = published.schedules;
  return { next_runs: Object.fromEntries(Object.entries(crons).map(([job, cron]) => [job, nextFire(cron, timezone)?.toISOString() ?? null])), next_runs_of: owner.worker };
}

/** The heading of the next runs, which says whose schedules they are, or why there are none. */
function nextRunsHeading(r: StatusReport): string {
  if (r.next_runs_of !== null) return `Next runs (the schedules of worker ${r.next_runs_of}, which owns this source)`;
  if (r.owner) return `Next runs: unknown (worker ${r.owner.worker} owns this source but recorded no schedules: a pitwall from before they were recorded)`;
  return 'Next runs: none (no worker owns this source now, so nothing is scheduled)';
}

/** The line that opens the report of a source the configuration no longer names. */
function unconfiguredLine(source: string, gone: NoLongerConfigured): string {
  const since = gone.since
    ? `no longer configured since ${gone.since}`
    : `not configured here (PITWALL_SOURCES); a worker or sync last started with it at ${gone.last_configured_at ?? 'an unknown time'}`;
  const rows = gone.retired_at
    ? `retired at ${gone.retired_at}: its rows are marked deleted (pitwall retire-source ${source} --delete removes them)`
    : `its rows are kept until pitwall retire-source ${source} marks them deleted (--delete removes them)`;
  return `Source ${source} is ${since}; ${rows}.`;
}

export function statusText(r: StatusReport, source = DEFAULT_SOURCE): string {
  const parts = [
    ...(r.no_longer_configured ? [unconfiguredLine(source, r.no_longer_configured), ''] : []),
    'Jobs',
    renderTable(
      ['job', 'last run', 'status', 'started', 'finished', 'last success', 'error'],
      r.jobs.map((j) => [j.job, j.run_id, j.status ?? 'never run', j.started_at, j.finished_at, j.last_success_at, wrapText(j.error ?? '', 60)]),
    ),
    '',
    nextRunsHeading(r),
    ...(r.next_runs_of !== null ? [renderTable(['job', 'next run'], Object.entries(r.next_runs).map(([job, at]) => [job, at ?? '']))] : []),
    '',
    r.owner ? `Owned by worker ${r.owner.worker} (its session since ${r.owner.since})` : 'No worker owns this source now',
    '',
    'Running now',
    r.running.length
      ? renderTable(
          ['run', 'job', 'trigger', 'worker', 'started', 'requests', 'rows written', 'scopes done / known so far', 'ETA', 'last heartbeat'],
          r.running.map((x) => [x.run_id, x.job, triggerText(x), x.worker, x.started_at, x.requests, x.rows_written, `${x.scopes_done} / ${x.scopes_total}`, runOutlook(x, (s) => `~${formatSeconds(s)} left`), x.heartbeat_at ?? 'none yet']),
        )
      : '(no run is going)',
    '',
    'Freshness (when each table last changed)',
    renderTable(['table', 'newest change'], r.freshness.map((f) => [f.table, f.newest_synced_at ?? '(empty)'])),
    '',
    'Recent runs',
    r.runs.length
      ? renderTable(
          ['run', 'job', 'trigger', 'status', 'started', 'requests', 'rows written'],
          r.runs.map((x) => [x.run_id, x.job, triggerText(x), x.status, x.started_at, x.requests, x.rows_written]),
        )
      : '(none yet)',
    '',
    'Endpoints',
    r.endpoints.length
      ? renderTable(
          ['endpoint', 'scopes', 'ok', 'invalid', 'error', 'last success'],
          r.endpoints.map((e) => [e.endpoint, e.scopes, e.ok, e.invalid, e.error, e.last_success_at]),
        )
      : '(no scope synced yet)',
    '',
    r.drift.summary,
    r.duplicates.summary,
  ];
  if (r.failing.length) {
    parts.push('', 'Failing scopes', renderTable(['endpoint', 'params', 'status', 'error'], r.failing.map((f) => [f.endpoint, f.params, f.status, wrapText(f.last_error ?? '', 80)])));
  }
  if (r.set_aside.length) {
    parts.push(
      '',
      'Set aside (each failed the same way in two runs in a row, three for a timeout, a reset or a 5xx; runs skip it until the time shown: PITWALL_SET_ASIDE_HOURS; pitwall sync --retry-set-aside tries them now)',
      renderTable(
        ['endpoint', 'params', 'failure', 'runs', 'until', 'error'],
        r.set_aside.map((f) => [f.endpoint, f.params, `${f.failure_kind ?? ''} (${f.failure_stage ?? ''})`, f.failed_runs, f.set_aside_until, wrapText(f.last_error ?? '', 80)]),
      ),
    );
  }
  if (r.rejects.length) {
    parts.push('', 'Recent rejects', renderTable(['endpoint', 'params', 'reason'], r.rejects.map((x) => [x.endpoint, x.params, wrapText(x.reason, 100)])));
  }
  return parts.join('\n');
}
