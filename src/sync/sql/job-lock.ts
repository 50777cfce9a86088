import type pg from 'pg';

import { jobLockId, LOCK_NAMESPACE } from '../../coordination/lock-ids.js';
import type { JobLock } from '../../coordination/types.js';
import { coerceDbError, DatabaseError } from '../../db/errors.js';

export type { JobLock } from '../../coordination/types.js';


/** Tries to take the lock back after its connection drops, waiting this long before each. */
const RETAKE_DELAYS_MS = [0, 100, 400, 1000];

type Watcher = (err?: unknown) => void;

/**
 * A pooled connection holding the lock, or null when another session holds it. `watch` is
 * attached before the first query: while checked out, the connection can drop at any moment and
 * the pool no longer listens for it.
 */
async function takeOn(pool: pg.Pool, id: number, watch: Watcher): Promise<pg.PoolClient | null> {
  const client = await pool.connect();
  client.on('error', watch);
  client.on('end', watch);
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_NAMESPACE, id]);
    if (rows[0]?.ok) return client;
    giveBack(client, watch);
    return null;
  } catch (err) {
    giveBack(client, watch, err);
    throw err;
  }
}

/** Back to the pool (or, after an error, destroyed); the pool's own listener takes over at once. */
function giveBack(client: pg.PoolClient, watch: Watcher, err?: unknown): void {
  client.release(err === undefined ? undefined : err instanceof Error ? err : new Error(String(err)));
  client.off('error', watch);
  client.off('end', watch);
}

/**
 * Takes the session-level advisory lock of one source's job on a dedicated connection, or returns null when
 * another process (a worker on any machine, or a manual `pitwall sync`) holds it. The lock lives
 * as long as that connection: a process that dies releases it with its session.
 *
 * The connection stays checked out for the whole run, where the pool no longer listens for its
 * errors: a backend terminated under it (a failover, pg_terminate_backend) would emit an
 * unhandled 'error' and crash the process. So the lock watches its own connection and, when it
 * drops, takes the lock back on a fresh one. Until the old backend has exited it still holds
 * the lock, so a refusal is retried a few times before it counts as another process's; if the
 * lock cannot be taken back, `lost` is aborted.
 */
export async function tryJobLock(pool: pg.Pool, source: string, job: string): Promise<JobLock | null> {
  const id = jobLockId(source, job);

  const lost = new AbortController();
  let holder: { client: pg.PoolClient; watch: Watcher } | null = null;
  let released = false;
  let retaking: Promise<void> = Promise.resolve();

  /** A watcher for one connection: when it is the holder and drops, the lock is taken back. */
  const watcher = (): Watcher => {
    const watch: Watcher = (err) => {
      if (holder?.watch !== watch) return;
      const { client } = holder;
      holder = null;
      const cause = coerceDbError(err ?? new Error('job lock connection ended'));
      giveBack(client, watch, cause);
      if (!released) retaking = retake(cause);
    };
    return watch;
  };

  const take = async (): Promise<boolean> => {
    const watch = watcher();
    const client = await takeOn(pool, id, watch);
    if (client) holder = { client, watch };
    return client !== null;
  };

  const retake = async (cause: DatabaseError): Promise<void> => {
    let last: unknown = cause;
    let refused = false;
    for (const delay of RETAKE_DELAYS_MS) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (released) return;
      try {
        if (await take()) return;
        refused = true;
      } catch (err) {
        last = err;
        refused = false;
      }
    }
    const failure = coerceDbError(last);
    const why = refused ? 'another process took it' : failure.message;
    lost.abort(new DatabaseError(`job ${job}: lost its lock when the lock's connection dropped (${why})`, { cause: last, sqlstate: failure.sqlstate, retryable: false }));
  };

  if (!(await take())) return null;
  return {
    lost: lost.signal,
    confirm: async () => {
      await retaking;
      lost.signal.throwIfAborted();
    },
    release: async () => {
      if (released) return;
      released = true;
      await retaking;
      const h = holder;
      holder = null;
      if (!h) return;
      try {
        await h.client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, id]);
        giveBack(h.client, h.watch);
      } catch (err) {
        // The session is gone, and the lock with it; discard the connection.
        giveBack(h.client, h.watch, err);
      }
    },
  };
}

/**
 * Every lock of `jobs`, taken in the order given, or null (holding none) when another process
 * holds any of them. One lock that lost its connection for good aborts the whole set's `lost`.
 */
export async function tryJobLocks(pool: pg.Pool, source: string, jobs: readonly string[]): Promise<JobLock | null> {
  const held: JobLock[] = [];
  const releaseAll = async () => {
    for (const lock of [...held].reverse()) await lock.release();
  };
  try {
    for (const job of jobs) {
      const lock = await tryJobLock(pool, source, job);
      if (!lock) {
        await releaseAll();
        return null;
      }
      held.push(lock);
    }
  } catch (err) {
    await releaseAll();
    throw err;
  }
  return {
    lost: AbortSignal.any(held.map((l) => l.lost)),
    confirm: async () => {
      for (const lock of held) await lock.confirm();
    },
    release: releaseAll,
  };
}
