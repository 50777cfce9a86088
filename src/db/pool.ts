import type { Socket } from 'node:net';

import pg from 'pg';

import type { Logger } from '../log.js';

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  logger?: Logger;
  /** How long one transaction may take before its connection is destroyed (PITWALL_DB_DEADLINE_MS; TRANSACTION_DEADLINE_MS when absent). */
  deadlineMs?: number | undefined;
}

/**
 * How long one transaction (a scope's load, a run's record) may take from BEGIN to COMMIT before
 * its connection is taken for dead and destroyed: a link that went half-open answers nothing, and
 * TCP alone would wait about 15 minutes. Far above any real load's time; the transaction is then
 * retried on a fresh connection.
 */
export const TRANSACTION_DEADLINE_MS = 120_000;

/**
 * The server ends a session left idle inside a transaction this long, releasing its row locks: a
 * stalled client's half-finished write must not hold a run's row (its fence) or a scope's rows.
 */
export const IDLE_IN_TRANSACTION_MS = 60_000;

/** Client-side TCP keepalive from this long of silence: an idle connection whose link died is found before it is handed out. */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

/**
 * A server's restart or failover ends every idle connection of a pool at once: one warning in
 * this window says so, the other losses in it are the same news and go to debug.
 */
export const IDLE_LOSS_QUIET_MS = 10_000;

/**
 * What createPool keeps per pool: its transaction deadline, and every client it made whose socket
 * is still open. pg-pool forgets a client as soon as it asks it to end (an idle timeout, the pool's
 * own end), but pg's end() only half-closes the socket and waits for the server's goodbye: on a
 * link that stopped answering, that socket would hold the process open for as long as TCP takes
 * to give up, or forever where something still answers TCP.
 */
const made = new WeakMap<pg.Pool, { deadlineMs: number; open: Set<pg.ClientBase> }>();

/** The transaction deadline of a pool made by createPool. */
export const deadlineOf = (pool: pg.Pool): number => made.get(pool)?.deadlineMs ?? TRANSACTION_DEADLINE_MS;

/** A client's socket (pg keeps it on its connection). */
const streamOf = (client: pg.ClientBase): Socket | undefined => (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;

/** Ends a client's socket at once: pg's own end() waits for a server that may never answer. */
export function destroyConnection(client: pg.ClientBase): void {
  streamOf(client)?.destroy();
}

/**
 * A pg pool that no dropped connection can crash. An idle client whose backend dies (a restart,
 * pg_terminate_backend) emits 'error' on the pool, which is listened for here; the next query
 * gets a fresh connection. A checked-out client emits 'error' on itself, and its holder may not
 * be listening at that moment (a CI run of the database-trouble test caught one such event as an
 * uncaught exception): every client gets a listener of its own when the pool makes it, so the
 * event is logged, the client turns unqueryable, and its holder's next query fails as a database
 * error, which the callers classify and retry. A connect that hangs fails after the deadline too.
 */
export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const deadlineMs = options.deadlineMs ?? TRANSACTION_DEADLINE_MS;
  const connectMs = Math.min(deadlineMs, 30_000);
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'pitwall',
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    connectionTimeoutMillis: connectMs,
    // Set once per connection, before the pool hands it out: as a startup parameter a pooler such
    // as PgBouncer would refuse it. pg-pool's connection timeout ends with the startup, before
    // this runs, so a link that stops answering here is cut by a timer of its own.
    onConnect: async (client) => {
      const timer = setTimeout(() => destroyConnection(client), connectMs);
      try {
        await client.query(`SET idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}`);
      } finally {
        clearTimeout(timer);
      }
    },
  });
  const open = new Set<pg.ClientBase>();
  made.set(pool, { deadlineMs, open });
  let warnedAt = -Infinity;
  pool.on('error', (err) => {
    const fields = { error: err.message, code: (err as { code?: string }).code };
    if (performance.now() - warnedAt > IDLE_LOSS_QUIET_MS) {
      warnedAt = performance.now();
      options.logger?.warn(fields, 'idle database connection failed');
    } else options.logger?.debug(fields, 'idle database connection failed');
  });
  pool.on('connect', (client) => {
    open.add(client);
    streamOf(client)?.once('close', () => open.delete(client));
    client.on('error', (err) => {
      options.logger?.debug({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection failed');
    });
  });
  return pool;
}

/**
 * Ends a pool within `boundMs`: pg's end() waits for every client to be given back, and each
 * client's socket then waits for the server to say goodbye, which a database that does not answer
 * never does. Past the bound, every socket the pool made that is still open is destroyed (checked
 * out, idle, connecting, or already forgotten by pg-pool), so a stopping process is never held
 * open by a dead link.
 */
export async function endPool(pool: pg.Pool, boundMs = 1_000): Promise<void> {
  const clients = new Set([...((pool as unknown as { _clients?: pg.ClientBase[] })._clients ?? []), ...(made.get(pool)?.open ?? [])]);
  const ended = Promise.all([pool.end().catch(() => undefined), ...[...clients].map(socketClosed)]);
  if (await within(ended, boundMs)) return;
  for (const client of clients) destroyConnection(client);
  // Destroyed sockets close at once; the wait is only for their events to be handled.
  await within(ended, 100);
}

/** Resolves once the client's socket has closed (at once for one that never opened or is gone). */
function socketClosed(client: pg.ClientBase): Promise<void> {
  const stream = streamOf(client);
  if (!stream || stream.destroyed || (stream.readyState === 'closed' && !stream.connecting)) return Promise.resolve();
  return new Promise((resolve) => stream.once('close', () => resolve()));
}

/** Whether `done` settles within `ms`. */
async function within(done: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([done.then(() => true), late]);
  clearTimeout(timer);
  return settled;
}
