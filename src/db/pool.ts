import pg from 'pg';

import type { Logger } from '../log.js';

export interface PoolOptions {
  max?: number;
  applicationName?: string;
  logger?: Logger;
}

/**
 * A pg pool with an 'error' listener attached: an idle client whose backend dies (a restart,
 * pg_terminate_backend) emits 'error' on the pool, and an unhandled 'error' event would crash
 * the process. The next query on that pool simply gets a fresh connection.
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
  return pool;
}
