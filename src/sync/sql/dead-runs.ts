import type pg from 'pg';

import { STALE_AFTER_MS } from '../../coordination/lease.js';
import { goneHere } from '../../coordination/local-process.js';
import { coerceDbError } from '../../db/errors.js';
import { queryWithRetry } from '../../db/transaction.js';

export interface DeadRun {
  runId: number;
  source: string;
  job: string;
}

/**
 * The one rule that decides a run is dead: still `running`, and its heartbeat (its start, if it
 * never beat) older than STALE_AFTER_MS on the server's clock. Heartbeats are written by their
 * process's beat on its lock session, and a process stops its runs when that beat has gone
 * unanswered for LEASE_MS, which is shorter: so a run this rule calls dead has stopped sending and
 * writing, whatever happened to its process or its links (src/coordination/lease.ts). `$stale`
 * is the SQL that names the bound in ms.
 */
export const deadRun = (stale: string, alias = ''): string =>
  `${alias}status = 'running' AND COALESCE(${alias}heartbeat_at, ${alias}started_at) < now() - make_interval(secs => ${stale}::double precision / 1000)`;

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
 * Marks `abandoned` every run the rule (deadRun) calls dead, and the runs of `gone` (whose
 * process is known gone: src/coordination/local-process.ts), so that what `status`, the status
 * page and `retire-source` show is how things stand. Any command may call it; a session that cannot
 * write marks nothing. A run's next owner does not need it: the job lock's statement closes the
 * job's dead runs itself (src/sync/sql/job-lock.ts).
 */
export async function markDeadRuns(db: pg.Pool, staleAfterMs = STALE_AFTER_MS, gone: readonly number[] = []): Promise<DeadRun[]> {
  try {
    const { rows } = await queryWithRetry<{ run_id: string; source: string; job: string }>(
      db,
      `UPDATE pitwall.sync_runs SET ${ABANDON} WHERE ${deadRun('$1')} OR (status = 'running' AND run_id = ANY($2::bigint[])) RETURNING run_id, source, job`,
      [staleAfterMs, gone],
    );
    return rows.map((r) => ({ runId: Number(r.run_id), source: r.source, job: r.job }));
  } catch (err) {
    if (CANNOT_WRITE.has(coerceDbError(err).sqlstate ?? '')) return [];
    throw err;
  }
}

/**
 * markDeadRuns with every run this machine's processes left running and no longer run (goneHere)
 * among the dead, as a run's next owner counts them (src/sync/sql/job-lock.ts): what a look at
 * the runs (`status`, the status page, the metrics) calls dead is what the next run would.
 */
export async function markDeadRunsSeenHere(db: pg.Pool, staleAfterMs = STALE_AFTER_MS): Promise<DeadRun[]> {
  const { rows } = await db.query<{ run_id: number; host: string | null; pid: number | null }>(
    `SELECT run_id::int, host, pid FROM pitwall.sync_runs WHERE status = 'running'`,
  );
  return markDeadRuns(db, staleAfterMs, rows.filter((r) => goneHere(r.host, r.pid)).map((r) => r.run_id));
}
