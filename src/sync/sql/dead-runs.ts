import type pg from 'pg';

import { LOCK_NAMESPACE, runLockIds } from '../../coordination/lock-ids.js';
import { coerceDbError } from '../../db/errors.js';
import { queryWithRetry } from '../../db/transaction.js';
import { STALE_AFTER_MS } from '../heartbeat.js';
import { JOB_NAMES } from '../jobs.js';


/** Every job a sync_runs row can name: each live run holds its job's locks. */
const RUN_JOBS = [...JOB_NAMES, 'rebuild'] as const;

export interface DeadRun {
  runId: number;
  source: string;
  job: string;
}

/** The error a dead run's row gets, naming the process that ran it. */
const DEAD_ERROR = `format('its process (pid %s on %s) stopped reporting progress; marked abandoned at its last heartbeat', pid, host)`;

/**
 * How a dead run's row is closed: at its last sign of life (its last heartbeat, or its start if it
 * never beat), keeping the counts its heartbeats wrote, with an error naming the process.
 */
export const ABANDON = `status = 'abandoned', finished_at = COALESCE(heartbeat_at, started_at), error = ${DEAD_ERROR},
       summary = CASE WHEN summary IS NULL THEN NULL ELSE summary || jsonb_build_object('status', 'abandoned', 'error', ${DEAD_ERROR}) END`;

/** SQLSTATEs of a session that may read but not write: a read-only role or a standby. */
const CANNOT_WRITE = new Set(['42501', '25006']);

/**
 * Marks `abandoned` every run still `running` whose process is gone: no session holds the
 * advisory lock(s) its run holds (a read-only look at pg_locks in this database; the lock is
 * never taken, so a check never makes a real run skip) and its heartbeat is older than
 * `staleAfterMs`. Both are needed: the lock is free for a moment while a run's lock connection is
 * replaced, and a heartbeat can be late on a busy pool. Any command may call it (status, sync,
 * rebuild, the worker, the status page); a session that cannot write marks nothing.
 */
export async function markDeadRuns(db: pg.Pool, staleAfterMs = STALE_AFTER_MS): Promise<DeadRun[]> {
  try {
    // The lock ids are computed here, not in SQL, so first the sources that have running runs
    // (the partial index on running runs makes this a lookup of a few rows).
    const { rows: running } = await queryWithRetry<{ source: string }>(db, `SELECT DISTINCT source FROM pitwall.sync_runs WHERE status = 'running'`);
    if (running.length === 0) return [];
    const locks = running.flatMap(({ source }) => RUN_JOBS.flatMap((job) => runLockIds(source, job).map((id) => ({ source, job, id }))));
    const { rows } = await queryWithRetry<{ run_id: string; source: string; job: string }>(
      db,
      `WITH run_locks(source, job, id) AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]))
       UPDATE pitwall.sync_runs r SET ${ABANDON}
        WHERE r.status = 'running'
          AND COALESCE(r.heartbeat_at, r.started_at) < now() - make_interval(secs => $4::double precision / 1000)
          AND NOT EXISTS (
            SELECT 1 FROM run_locks k
              JOIN pg_locks l ON l.objid = k.id::oid
             WHERE k.source = r.source AND k.job = r.job
               AND l.locktype = 'advisory' AND l.classid = $5::oid AND l.objsubid = 2 AND l.granted
               AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
       RETURNING r.run_id, r.source, r.job`,
      [locks.map((k) => k.source), locks.map((k) => k.job), locks.map((k) => k.id), staleAfterMs, LOCK_NAMESPACE],
    );
    return rows.map((r) => ({ runId: Number(r.run_id), source: r.source, job: r.job }));
  } catch (err) {
    if (CANNOT_WRITE.has(coerceDbError(err).sqlstate ?? '')) return [];
    throw err;
  }
}

/**
 * Runs of one source's `job` still marked running, closed the same way. Called only while
 * holding that job's lock, so no live process can own them, whatever their heartbeat's age.
 */
export async function markAbandoned(db: pg.Pool | pg.ClientBase, source: string, job: string): Promise<number> {
  const { rowCount } = await queryWithRetry(
    db,
    `UPDATE pitwall.sync_runs SET ${ABANDON} WHERE source = $2 AND job = $1 AND status = 'running'`,
    [job, source],
  );
  return rowCount ?? 0;
}
