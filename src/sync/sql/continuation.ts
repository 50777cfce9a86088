import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

/** The earlier parts of a run that continues stopped ones. */
export interface Continuation {
  /** The stopped run this one continues. */
  continues: number;
  /** Every earlier part, back to the run that started afresh: the scopes they finished are not asked for again. */
  parts: number[];
  /** Requests the earlier parts sent. */
  requestsBefore: number;
}

/**
 * Makes run `runId` the continuation of the last run of its job and source, when that one
 * stopped before the end of its walk (interrupted, abandoned, or failed on the way) and the part
 * that started afresh began within `withinHours`; records it on the run's row and returns the
 * parts. Null (one statement, nothing written) when the last run reached its end, or is too old.
 * Called with the job's lock held, after dead runs were closed: no part can still be writing.
 */
export async function continueStoppedRun(db: pg.Pool, at: { runId: number; source: string; job: string; withinHours: number }): Promise<Continuation | null> {
  if (at.withinHours <= 0) return null;
  const { rows } = await queryWithRetry<{ continues: string; parts: string[]; requests: string }>(
    db,
    `WITH RECURSIVE last AS (
       SELECT run_id, status, walk_done FROM pitwall.sync_runs
        WHERE source = $2 AND job = $3 AND run_id < $1 AND status NOT IN ('skipped', 'running')
        ORDER BY started_at DESC, run_id DESC LIMIT 1
     ), parts AS (
       SELECT run_id, continues_run_id, started_at, requests FROM pitwall.sync_runs
        WHERE run_id = (SELECT run_id FROM last WHERE status IN ('interrupted', 'abandoned', 'failed') AND walk_done IS FALSE)
       UNION ALL
       SELECT r.run_id, r.continues_run_id, r.started_at, r.requests FROM pitwall.sync_runs r JOIN parts p ON r.run_id = p.continues_run_id
     ), chain AS (
       SELECT (SELECT run_id FROM last) AS continues, array_agg(run_id) AS parts, sum(requests) AS requests FROM parts
       HAVING count(*) > 0 AND min(started_at) > now() - make_interval(hours => $4::int)
     )
     UPDATE pitwall.sync_runs SET continues_run_id = chain.continues, requests_before = chain.requests
       FROM chain WHERE run_id = $1
     RETURNING chain.continues, chain.parts, chain.requests`,
    [at.runId, at.source, at.job, at.withinHours],
  );
  const row = rows[0];
  return row ? { continues: Number(row.continues), parts: row.parts.map(Number), requestsBefore: Number(row.requests) } : null;
}
