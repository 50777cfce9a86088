import pg from 'pg';

import type { Logger } from '../log.js';

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  logger?: Logger;
}

/**
 * A pg pool that no dropped connection can crash. An idle client whose backend dies (a restart,
 * pg_terminate_backend) emits 'error' on the pool, which is listened for here; the next query
 * gets a fresh connection. A checked-out client emits 'error' on itself, and its holder may not
 * be listening at that moment (a CI run of the database-trouble test caught one such event as an
 * uncaught exception): every client gets a listener of its own when the pool makes it, so the
 * event is logged, the client turns unqueryable, and its holder's next query fails as a database
 * error, which the callers classify and retry.
 */
export function createPool(connectionString: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'pitwall',
  });
  pool.on('error', (err) => {
    options.logger?.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'idle database connection failed');
  });
  pool.on('connect', (client) => {
    client.on('error', (err) => {
      options.logger?.debug({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection failed');
    });
  });
  return pool;
}
