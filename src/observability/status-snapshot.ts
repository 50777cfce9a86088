import type pg from 'pg';

import { STALE_AFTER_MS } from '../coordination/lease.js';
import { withTransaction } from '../db/transaction.js';
import { markDeadRunsSeenHere } from '../sync/sql/dead-runs.js';

import { heldLocks, type SourceOwner } from './held-locks.js';
import { runningRuns, type RunningRun } from './running-runs.js';

/** One reading of the warehouse, as every view of runs takes it. */
export interface Snapshot {
  /** Every statement of the reading goes here: one transaction. */
  db: pg.PoolClient;
  /** The transaction's now(): the reading's ages and durations are all to it, on the database's clock. */
  now: Date;
  /** The rule's bound on a heartbeat's age (STALE_AFTER_MS), by which a run is dead. */
  staleAfterMs: number;
}

/**
 * One reading behind every view of runs (`pitwall status`, the status page and its JSON, the
 * metrics' gauges), so that a run is one thing in all of them. First the one rule on dead runs is
 * applied, as a run's next owner applies it: a heartbeat STALE_AFTER_MS old, or a process of this
 * machine gone (markDeadRunsSeenHere). Then `read` runs in one REPEATABLE READ, READ ONLY
 * transaction: one MVCC snapshot for every table and one now(), so a run another process closes
 * meanwhile is `running` in every section or `abandoned` in every section, never both.
 */
export async function readSnapshot<T>(pool: pg.Pool, read: (snapshot: Snapshot) => Promise<T>, staleAfterMs = STALE_AFTER_MS): Promise<T> {
  await markDeadRunsSeenHere(pool, staleAfterMs);
  return withTransaction(pool, async (db) => {
    // The snapshot is taken by the first statement after this one, now() by BEGIN: the same instant to a few ms.
    await db.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const { rows } = await db.query<{ now: Date }>('SELECT now()');
    return read({ db, now: rows[0]!.now, staleAfterMs });
  });
}

/** Who owns each of `sources` and the runs going (of `sources`, or all when null), from one look at the locks. */
export async function runsNow(snapshot: Snapshot, sources: readonly string[] | null): Promise<{ owners: Map<string, SourceOwner>; running: RunningRun[] }> {
  const locks = await heldLocks(snapshot.db, sources ?? []);
  return { owners: locks.owners, running: await runningRuns(snapshot.db, sources, locks.runLockHeld, snapshot.staleAfterMs) };
}
