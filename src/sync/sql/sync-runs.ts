import { hostname } from 'node:os';

import type pg from 'pg';

import { DatabaseError } from '../../db/errors.js';
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
    `INSERT INTO pitwall.sync_runs (source, job, trigger, status, host, pid, finished_at, heartbeat_at, shapes_file, shapes_digest, walk_done)
     VALUES ($8, $1, $2, $3, $4, $5, CASE WHEN $3 = 'running' THEN NULL ELSE now() END, CASE WHEN $3 = 'running' THEN now() END, $6, $7,
             CASE WHEN $3 = 'running' THEN false END)
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

/** How a run ended, as its row records it. */
export interface RunEnd {
  status: RunStatus;
  error: string | null;
  /** The walk reached its end: nothing is left for a next run to continue. */
  walkDone: boolean;
}

/**
 * Records a run's outcome; false when its row was no longer `running` (another process closed it
 * as abandoned after the run's lease ran out), which is left as that process wrote it.
 */
export async function finishRun(db: pg.Pool, runId: number, end: RunEnd, totals: RunTotals, scopes: RunScopes, summary: unknown): Promise<boolean> {
  const { rowCount } = await queryWithRetry(
    db,
    `UPDATE pitwall.sync_runs SET status = $2, finished_at = now(), requests = $3, retries = $4,
       rows_inserted = $5, rows_updated = $6, rows_unchanged = $7, rows_deleted = $8, rows_rejected = $9,
       scopes_done = $10, scopes_total = $11, unknown_fields = $12, summary = $13::jsonb, error = $14, walk_done = $15
     WHERE run_id = $1 AND status = 'running'`,
    [runId, end.status, ...totalsParams(totals), scopes.done, scopes.total, totals.unknownFields, JSON.stringify(summary), end.error, end.walkDone],
  );
  return rowCount === 1;
}

/** One running run's figures for recordHeartbeats. */
export interface RunBeat {
  runId: number;
  totals: RunTotals;
  scopes: RunScopes;
  summary: unknown;
}

/**
 * Every running run of one process, in one statement on its lock session: a worker's beat costs
 * one statement however many runs it has going. Only rows still `running`, so a late beat never
 * undoes a finish. A row a load transaction holds at its fence is waited for: a busy run's row is
 * share-locked at nearly every moment, and skipping it let such a run go without a heartbeat for
 * long enough to look dead. A load transaction that stalls there holds the beat no longer than
 * the lock session's lock_timeout (2 s): the beat fails with a warning, and its answer still
 * proves the session alive.
 */
export async function recordHeartbeats(session: { query: (text: string, values: unknown[]) => Promise<unknown> }, beats: readonly RunBeat[]): Promise<void> {
  if (beats.length === 0) return;
  const rows = beats.map((b) => ({ run_id: b.runId, ...b.totals, done: b.scopes.done, total: b.scopes.total, summary: b.summary }));
  await session.query(
    `WITH b AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS b(run_id bigint, requests int, retries int, inserted int, updated int, unchanged int, deleted int, rejected int, done int, total int, summary jsonb))
     UPDATE pitwall.sync_runs r SET heartbeat_at = now(), requests = b.requests, retries = b.retries,
       rows_inserted = b.inserted, rows_updated = b.updated, rows_unchanged = b.unchanged, rows_deleted = b.deleted, rows_rejected = b.rejected,
       scopes_done = b.done, scopes_total = b.total, summary = b.summary
     FROM b WHERE r.run_id = b.run_id AND r.status = 'running'`,
    [JSON.stringify(rows)],
  );
}

/**
 * The fence of a run's writes, run inside each of its load transactions just before COMMIT: the
 * run's row, share-locked until COMMIT (the run's transactions do not wait on each other; an
 * UPDATE of the row waits for them), must still say `running`. Another process closes a run's row
 * only once the run is dead by the rule (src/sync/sql/dead-runs.ts), so a write of a run that was
 * paused or cut off past its lease fails here instead of landing after its successor began.
 */
export async function fenceRun(client: pg.ClientBase, runId: number): Promise<void> {
  const { rows } = await client.query<{ status: string }>('SELECT status FROM pitwall.sync_runs WHERE run_id = $1 FOR SHARE', [runId]);
  const status = rows[0]?.status;
  if (status !== 'running') throw new RunFencedError(runId, status);
}

/** A write of a run whose row another process has closed: the run's lease had run out. */
export class RunFencedError extends DatabaseError {
  override readonly code = 'run-fenced';

  constructor(runId: number, status: string | undefined) {
    super(`run ${runId} was closed as ${status ?? 'missing'} by another process (its lease had run out); its write is refused`, { retryable: false });
  }
}
