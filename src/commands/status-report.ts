import type pg from 'pg';

import { renderTable } from './format.js';

export interface StatusReport {
  runs: Array<{ run_id: number; job: string; trigger: string; status: string; started_at: string; finished_at: string | null; requests: number; rows_written: number; error: string | null }>;
  endpoints: Array<{ endpoint: string; scopes: number; ok: number; invalid: number; error: number; last_success_at: string | null }>;
  failing: Array<{ endpoint: string; params: string; status: string; last_error: string | null; last_attempt_at: string | null }>;
  rejects: Array<{ endpoint: string; params: string; reason: string; created_at: string }>;
}

/** Last runs, the state of every endpoint's scopes, failing scopes and recent rejects. */
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
  return { runs: runs.rows, endpoints: endpoints.rows, failing: failing.rows, rejects: rejects.rows };
}

export function statusText(r: StatusReport): string {
  const parts = [
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
  ];
  if (r.failing.length) {
    parts.push('', 'Failing scopes', renderTable(['endpoint', 'params', 'status', 'error'], r.failing.map((f) => [f.endpoint, f.params, f.status, (f.last_error ?? '').slice(0, 80)])));
  }
  if (r.rejects.length) {
    parts.push('', 'Recent rejects', renderTable(['endpoint', 'params', 'reason'], r.rejects.map((x) => [x.endpoint, x.params, x.reason.slice(0, 100)])));
  }
  return parts.join('\n');
}
