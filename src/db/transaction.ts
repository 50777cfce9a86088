import pg from 'pg';

import { classifyDbError, coerceDbError, DatabaseError, sqlstateOf } from './errors.js';
import { deadlineOf, destroyConnection } from './pool.js';

export interface TransactionOptions {
  /** Tries in all, the first included (default 3). */
  attempts?: number;
  /** Checked before every attempt and during the wait between attempts. */
  signal?: AbortSignal;
  /** Called after a failed attempt that will be retried, with that attempt's number (1-based). */
  onRetry?(err: DatabaseError, attempt: number): void;
}

const BASE_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

/**
 * Milliseconds to wait before retry number `attempt` (1 = the first retry): exponential from
 * 50 ms, capped at 1 s, with the upper half jittered so transactions that collided (a deadlock
 * has two sides) do not collide again in step.
 */
export function transactionRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A failure worth wrapping as a DatabaseError: the server or the connection said no, not our own code. */
function isDatabaseFailure(err: unknown, connectionLost: boolean): boolean {
  return connectionLost || sqlstateOf(err) !== undefined || classifyDbError(err) === 'retryable' || err instanceof DatabaseError;
}

async function attempt<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    // Anything pool.connect throws is a database failure, whatever its shape.
    throw coerceDbError(err);
  }
  // While a client is checked out the pool stops listening for its 'error' events; one that
  // arrives between queries (the backend terminated while fn awaited something else) would
  // otherwise be an unhandled 'error' event and crash the process. It also tells us, without
  // reading messages, that the connection is gone.
  let lost: unknown;
  const onLost = (err?: unknown) => {
    lost ??= err ?? new Error('database connection ended');
  };
  client.on('error', onLost);
  client.on('end', onLost);
  // A transaction past its deadline, or one its caller cancels, ends with its connection: a
  // half-open link would otherwise hold it for as long as TCP takes to give up (src/db/pool.ts).
  const deadlineMs = deadlineOf(pool);
  const cut = (why: unknown) => {
    onLost(why);
    destroyConnection(client);
  };
  const deadline = setTimeout(() => cut(new Error(`no answer from the database within ${deadlineMs} ms`)), deadlineMs);
  const onAbort = () => cut(signal?.reason ?? new Error('cancelled'));
  signal?.addEventListener('abort', onAbort, { once: true });
  let discard: unknown;
  try {
    await client.query('BEGIN');
    const value = await fn(client);
    const commit = await client.query('COMMIT');
    // COMMIT of a transaction that an error inside fn already aborted (fn caught it) answers
    // ROLLBACK, not an error: report it rather than pretend the work was saved.
    if (commit.command === 'ROLLBACK') {
      throw new DatabaseError('transaction was aborted by an error inside it and has been rolled back', { retryable: false });
    }
    return value;
  } catch (err) {
    if (lost === undefined) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        discard = rollbackErr;
      }
    }
    if (!isDatabaseFailure(err, lost !== undefined)) throw err;
    const dbErr = coerceDbError(err);
    if (lost !== undefined && !dbErr.retryable) {
      // Whatever fn saw (a "not queryable" error, say), the cause is a dropped connection.
      throw new DatabaseError(`database connection lost: ${dbErr.message}`, { cause: err, sqlstate: dbErr.sqlstate, retryable: true });
    }
    throw dbErr;
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onAbort);
    // release(err) makes the pool destroy the client instead of handing a broken one out again.
    const broken = discard ?? lost;
    client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
    client.off('error', onLost);
    client.off('end', onLost);
  }
}

/**
 * Runs `fn` inside BEGIN/COMMIT on one pooled client, rolling back when it throws. On a
 * retryable failure (deadlock, serialization failure, lost connection: see classifyDbError)
 * the whole of `fn` runs again on a fresh transaction, so `fn` must be safe to repeat; the
 * loaders are (an upsert of the same rows converges). Other database failures are thrown as
 * DatabaseError; errors of fn's own making are thrown unchanged.
 *
 * A COMMIT whose connection drops is ambiguous (it may have committed); the retry then runs
 * against the committed state, which is another reason fn must be idempotent.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const attempts = Math.max(1, Math.floor(opts.attempts ?? 3));
  for (let n = 1; ; n++) {
    opts.signal?.throwIfAborted();
    try {
      return await attempt(pool, fn, opts.signal);
    } catch (err) {
      if (!(err instanceof DatabaseError) || !err.retryable || n >= attempts) throw err;
      opts.onRetry?.(err, n);
      await sleep(transactionRetryDelayMs(n), opts.signal);
    }
  }
}

/**
 * One statement. Given a pool, it runs with withTransaction's retries and classification, so a
 * connection dropped under a small bookkeeping write (a run's row, a scope's state, a body
 * reject) is retried on a fresh connection instead of ending the run with a raw driver error.
 * Given a client, the caller's transaction owns retries and rollback, and it simply runs.
 */
export function queryWithRetry<R extends pg.QueryResultRow = pg.QueryResultRow>(
  db: pg.Pool | pg.ClientBase,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  if (!(db instanceof pg.Pool)) return db.query<R>(text, values);
  return withTransaction(db, (client) => client.query<R>(text, values));
}
