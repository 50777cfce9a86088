import type pg from 'pg';

import { tableMeta } from '../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';
import { JOB_NAMES } from '../sync/jobs.js';
import { loadDrift } from '../sync/shape/load.js';
import { driftCounts, type DriftKind } from '../sync/shape/report.js';

import { driftLine } from './drift-report.js';
import { renderTable } from './format.js';

export interface StatusReport {
  /** Per job: its latest run (whatever the outcome) and when it last succeeded. */
  jobs: Array<{ job: string; run_id: number | null; status: string | null; started_at: string | null; finished_at: string | null; last_success_at: string | null; error: string | null }>;
  /** Per warehouse table: when a row's content last changed (newest `_synced_at`); null when empty. */
  freshness: Array<{ table: string; newest_synced_at: string | null }>;
  runs: Array<{ run_id: number; job: string; trigger: string; status: string; started_at: string; finished_at: string | null; requests: number; rows_written: number; error: string | null }>;
  endpoints: Array<{ endpoint: string; scopes: number; ok: number; invalid: number; error: number; last_success_at: string | null }>;
  failing: Array<{ endpoint: string; params: string; status: string; last_error: string | null; last_attempt_at: string | null }>;
  rejects: Array<{ endpoint: string; params: string; reason: string; created_at: string }>;
  /** The shape report in one line, and its path counts per endpoint (see `pitwall drift`). */
  drift: { summary: string; endpoints: Record<string, Record<DriftKind, number>> };
}

async function loadJobs(db: pg.Pool): Promise<StatusReport['jobs']> {
  const { rows } = await db.query(
    `SELECT j.job, r.run_id::int, r.status, r.started_at::text, r.finished_at::text, s.last_success_at::text, r.error
       FROM unnest($1::text[]) WITH ORDINALITY AS j(job, n)
       LEFT JOIN LATERAL (SELECT * FROM pitwall.sync_runs x WHERE x.job = j.job ORDER BY x.run_id DESC LIMIT 1) r ON true
       LEFT JOIN LATERAL (SELECT max(finished_at) AS last_success_at FROM pitwall.sync_runs x
                           WHERE x.job = j.job AND x.status = 'succeeded') s ON true
      ORDER BY j.n`,
    [JOB_NAMES],
  );
  return rows;
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
export async function loadStatus(db: pg.Pool, limit = 10): Promise<StatusReport> {
  const runs = await db.query(
    `SELECT run_id::int, job, trigger, status, started_at::text, finished_at::text, requests,
            rows_inserted + rows_updated + rows_deleted AS rows_written, error
       FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT $1`,
    [limit],
  );
  const endpoints = await db.query(
    `SELECT endpoint, count(*)::int AS scopes,
            count(*) FILTER (WHERE status = 'ok')::int AS ok,
            count(*) FILTER (WHERE status = 'invalid')::int AS invalid,
            count(*) FILTER (WHERE status = 'error')::int AS error,
            max(last_success_at)::text AS last_success_at
       FROM pitwall.sync_state GROUP BY endpoint ORDER BY endpoint`,
  );
  const failing = await db.query(
    `SELECT endpoint, params, status, last_error, last_attempt_at::text
       FROM pitwall.sync_state WHERE status <> 'ok' ORDER BY last_attempt_at DESC NULLS LAST LIMIT $1`,
    [limit],
  );
  const rejects = await db.query(
    `SELECT endpoint, params, reason, created_at::text FROM pitwall.rejects ORDER BY reject_id DESC LIMIT $1`,
    [limit],
  );
  return {
    jobs: await loadJobs(db),
    freshness: await loadFreshness(db),
    runs: runs.rows,
    endpoints: endpoints.rows,
    failing: failing.rows,
    rejects: rejects.rows,
    drift: await loadDrift(db).then((report) => ({ summary: driftLine(report), endpoints: driftCounts(report) })),
  };
}

export function statusText(r: StatusReport): string {
  const parts = [
    'Jobs',
    renderTable(
      ['job', 'last run', 'status', 'started', 'finished', 'last success', 'error'],
      r.jobs.map((j) => [j.job, j.run_id, j.status ?? 'never run', j.started_at, j.finished_at, j.last_success_at, (j.error ?? '').slice(0, 60)]),
    ),
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
