import { hostname } from 'node:os';

import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'skipped' | 'interrupted' | 'abandoned';

export async function insertRun(db: pg.Pool, job: string, trigger: string, status: RunStatus): Promise<number> {
  // Retried on a dropped connection; should the first INSERT have committed unseen, its row is
  // left 'running' and the next run of the job marks it abandoned.
  const { rows } = await queryWithRetry<{ run_id: string }>(
    db,
    `INSERT INTO pitwall.sync_runs (job, trigger, status, host, pid, finished_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $3 = 'running' THEN NULL ELSE now() END) RETURNING run_id`,
    [job, trigger, status, hostname(), process.pid],
  );
  return Number(rows[0]?.run_id);
}

export interface RunTotals {
  requests: number;
  retries: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  rejected: number;
  unknownFields: number;
}

export async function finishRun(
  db: pg.Pool,
  runId: number,
  status: RunStatus,
  totals: RunTotals,
  summary: unknown,
  error: string | null,
): Promise<void> {
  await queryWithRetry(
    db,
    `UPDATE pitwall.sync_runs SET status = $2, finished_at = now(), requests = $3, retries = $4,
       rows_inserted = $5, rows_updated = $6, rows_unchanged = $7, rows_deleted = $8, rows_rejected = $9,
       unknown_fields = $10, summary = $11::jsonb, error = $12
     WHERE run_id = $1`,
    [
      runId,
      status,
      totals.requests,
      totals.retries,
      totals.inserted,
      totals.updated,
      totals.unchanged,
      totals.deleted,
      totals.rejected,
      totals.unknownFields,
      JSON.stringify(summary),
      error,
    ],
  );
}

/**
 * Runs of `job` still marked running. Called only while holding the job's advisory lock, so no
 * live process can own them: they were left by a process that died.
 */
export async function markAbandoned(db: pg.Pool | pg.ClientBase, job: string): Promise<number> {
  const { rowCount } = await queryWithRetry(
    db,
    `UPDATE pitwall.sync_runs SET status = 'abandoned', finished_at = COALESCE(finished_at, now())
      WHERE job = $1 AND status = 'running'`,
    [job],
  );
  return rowCount ?? 0;
}
