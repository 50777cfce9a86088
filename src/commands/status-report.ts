import type pg from 'pg';

import { tableMeta } from '../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';
import { runningRuns, type RunningRun } from '../observability/running-runs.js';
import { endpointStates, failingScopes, jobStates, recentRuns, type EndpointCounts, type FailingScope, type JobState } from '../observability/status-queries.js';
import type { Shapes } from '../shapes/overrides.js';
import { loadDrift } from '../sync/shape/load.js';
import { driftCounts, type DriftKind } from '../sync/shape/report.js';

import { driftLine } from './drift-report.js';
import { renderTable } from './format.js';

export interface StatusReport {
  /** Per job: its latest run (whatever the outcome) and when it last succeeded. */
  jobs: JobState[];
  /** Runs going now (any process), with their progress as their last heartbeat left it. */
  running: RunningRun[];
  /**
   * When each job's schedule fires next, computed by this process from its own cron settings
   * (it does not ask the worker, whose settings may differ).
   */
  next_runs: Record<string, string | null>;
  /** Per warehouse table: when a row's content last changed (newest `_synced_at`); null when empty. */
  freshness: Array<{ table: string; newest_synced_at: string | null }>;
  runs: Array<{ run_id: number; job: string; trigger: string; status: string; started_at: string; finished_at: string | null; requests: number; rows_written: number; error: string | null }>;
  endpoints: EndpointCounts[];
  failing: FailingScope[];
  rejects: Array<{ endpoint: string; params: string; reason: string; created_at: string }>;
  /** The shape report in one line, and its path counts per endpoint (see `pitwall drift`). */
  drift: { summary: string; endpoints: Record<string, Record<DriftKind, number>> };
}

/**
 * One scan per table of its `_synced_at` (no index: on a large warehouse this is the slow part of
 * `status`, seconds rather than milliseconds, which an operator's occasional look can afford).
 */
async function loadFreshness(db: pg.Pool): Promise<StatusReport['freshness']> {
  const tables = Object.keys(warehouseTables) as WarehouseTableName[];
  const { rows } = await db.query<{ table: string; newest_synced_at: string | null }>(
    tables
      .map((t, i) => `SELECT ${i} AS n, '${t}' AS "table", max(_synced_at)::text AS newest_synced_at FROM ${tableMeta(warehouseTables[t]).qualifiedName}`)
      .join(' UNION ALL ') + ' ORDER BY n',
  );
  return rows.map(({ table, newest_synced_at }) => ({ table, newest_synced_at }));
}

/** Each job's last run, table freshness, last runs, the state of every endpoint's scopes, failing scopes and recent rejects. */
export async function loadStatus(
  db: pg.Pool,
  limit = 10,
  nextRuns: Record<string, string | null> = {},
  shapes: Shapes | null = null,
): Promise<StatusReport> {
  const rejects = await db.query(
    `SELECT endpoint, params, reason, created_at::text FROM pitwall.rejects ORDER BY reject_id DESC LIMIT $1`,
    [limit],
  );
  return {
    jobs: await jobStates(db),
    running: await runningRuns(db),
    next_runs: nextRuns,
    freshness: await loadFreshness(db),
    runs: (await recentRuns(db, limit)).map(({ run_id, job, trigger, status, started_at, finished_at, requests, rows_written, error }) => ({
      run_id,
      job,
      trigger,
      status,
      started_at,
      finished_at,
      requests,
      rows_written,
      error,
    })),
    endpoints: (await endpointStates(db)).map(({ last_run_id: _, ...e }) => e),
    failing: await failingScopes(db, limit),
    rejects: rejects.rows,
    drift: await loadDrift(db, shapes).then((report) => ({ summary: driftLine(report), endpoints: driftCounts(report) })),
  };
}

function etaText(r: RunningRun): string {
  if (r.eta === 'estimated') return `~${formatSeconds(r.eta_seconds ?? 0)} left`;
  return r.eta === 'estimating' ? 'estimating' : 'no scope known yet';
}

function formatSeconds(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

export function statusText(r: StatusReport): string {
  const parts = [
    'Jobs',
    renderTable(
      ['job', 'last run', 'status', 'started', 'finished', 'last success', 'error'],
      r.jobs.map((j) => [j.job, j.run_id, j.status ?? 'never run', j.started_at, j.finished_at, j.last_success_at, (j.error ?? '').slice(0, 60)]),
    ),
    '',
    'Next runs (from this process\'s cron settings; a worker started with other settings differs)',
    renderTable(['job', 'next run'], Object.entries(r.next_runs).map(([job, at]) => [job, at ?? ''])),
    '',
    'Running now',
    r.running.length
      ? renderTable(
          ['run', 'job', 'trigger', 'started', 'requests', 'rows written', 'scopes done / known so far', 'ETA', 'last heartbeat'],
          r.running.map((x) => [x.run_id, x.job, x.trigger, x.started_at, x.requests, x.rows_written, `${x.scopes_done} / ${x.scopes_total}`, etaText(x), x.heartbeat_at ?? 'none yet']),
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
          r.runs.map((x) => [x.run_id, x.job, x.trigger, x.status, x.started_at, x.requests, x.rows_written]),
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
  ];
  if (r.failing.length) {
    parts.push('', 'Failing scopes', renderTable(['endpoint', 'params', 'status', 'error'], r.failing.map((f) => [f.endpoint, f.params, f.status, (f.last_error ?? '').slice(0, 80)])));
  }
  if (r.rejects.length) {
    parts.push('', 'Recent rejects', renderTable(['endpoint', 'params', 'reason'], r.rejects.map((x) => [x.endpoint, x.params, x.reason.slice(0, 100)])));
  }
  return parts.join('\n');
}
