import { hostname } from 'node:os';

import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

export type RunStatus = 'running' | 'succeeded' | 'failed' | 'skipped' | 'interrupted' | 'abandoned';

export async function insertRun(
  db: pg.Pool,
  source: string,
  job: string,
  trigger: string,
  status: RunStatus,
  shapes: { file: string; digest: string } | null = null,
): Promise<number> {
  // Retried on a dropped connection; should the first INSERT have committed unseen, its row is
  // left 'running' and the next run of the job marks it abandoned.
  const { rows } = await queryWithRetry<{ run_id: string }>(
    db,
    `INSERT INTO pitwall.sync_runs (source, job, trigger, status, host, pid, finished_at, heartbeat_at, shapes_file, shapes_digest)
     VALUES ($8, $1, $2, $3, $4, $5, CASE WHEN $3 = 'running' THEN NULL ELSE now() END, CASE WHEN $3 = 'running' THEN now() END, $6, $7)
     RETURNING run_id`,
    [job, trigger, status, hostname(), process.pid, shapes?.file ?? null, shapes?.digest ?? null, source],
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

/** Scopes finished so far, and known so far. */
export interface RunScopes {
  done: number;
  total: number;
}

const totalsParams = (t: RunTotals) => [t.requests, t.retries, t.inserted, t.updated, t.unchanged, t.deleted, t.rejected];

export async function finishRun(
  db: pg.Pool,
  runId: number,
  status: RunStatus,
  totals: RunTotals,
  scopes: RunScopes,
  summary: unknown,
  error: string | null,
): Promise<void> {
  await queryWithRetry(
    db,
    `UPDATE pitwall.sync_runs SET status = $2, finished_at = now(), requests = $3, retries = $4,
       rows_inserted = $5, rows_updated = $6, rows_unchanged = $7, rows_deleted = $8, rows_rejected = $9,
       scopes_done = $10, scopes_total = $11, unknown_fields = $12, summary = $13::jsonb, error = $14
     WHERE run_id = $1`,
    [runId, status, ...totalsParams(totals), scopes.done, scopes.total, totals.unknownFields, JSON.stringify(summary), error],
  );
}

/**
 * A running run's figures so far. Not retried: the next beat writes newer ones. Only while the
 * row is still `running`, so a late beat never undoes the run's own finish.
 */
export async function recordHeartbeat(db: pg.Pool, runId: number, totals: RunTotals, scopes: RunScopes, summary: unknown): Promise<void> {
  await db.query(
    `UPDATE pitwall.sync_runs SET heartbeat_at = now(), requests = $2, retries = $3,
       rows_inserted = $4, rows_updated = $5, rows_unchanged = $6, rows_deleted = $7, rows_rejected = $8,
       scopes_done = $9, scopes_total = $10, summary = $11::jsonb
     WHERE run_id = $1 AND status = 'running'`,
    [runId, ...totalsParams(totals), scopes.done, scopes.total, JSON.stringify(summary)],
  );
}

/** One running run's figures for recordHeartbeats. */
export interface RunBeat {
  runId: number;
  totals: RunTotals;
  scopes: RunScopes;
  summary: unknown;
}

/**
 * Every running run of one process, in one statement: a worker's beat costs one statement
 * however many runs it has going. Like recordHeartbeat, only rows still `running`.
 */
export async function recordHeartbeats(db: pg.Pool, beats: readonly RunBeat[]): Promise<void> {
  if (beats.length === 0) return;
  const rows = beats.map((b) => ({ run_id: b.runId, ...b.totals, done: b.scopes.done, total: b.scopes.total, summary: b.summary }));
  await db.query(
    `UPDATE pitwall.sync_runs r SET heartbeat_at = now(), requests = b.requests, retries = b.retries,
       rows_inserted = b.inserted, rows_updated = b.updated, rows_unchanged = b.unchanged, rows_deleted = b.deleted, rows_rejected = b.rejected,
       scopes_done = b.done, scopes_total = b.total, summary = b.summary
     FROM jsonb_to_recordset($1::jsonb) AS b(run_id bigint, requests int, retries int, inserted int, updated int, unchanged int, deleted int, rejected int, done int, total int, summary jsonb)
     WHERE r.run_id = b.run_id AND r.status = 'running'`,
    [JSON.stringify(rows)],
  );
}
