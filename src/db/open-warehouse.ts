import type pg from 'pg';

import type { Config } from '../config.js';
import { startEmbeddedPostgres } from '../embedded/embedded-postgres.js';
import { markSessionShared } from '../embedded/shared-session.js';
import type { Logger } from '../log.js';

import { migrateDatabase } from './migrate.js';
import { createPool } from './pool.js';
import { warehouseUnavailable } from './warehouse-unavailable.js';

export type WarehouseKind = 'postgres' | 'embedded';

export interface Warehouse {
  kind: WarehouseKind;
  pool: pg.Pool;
  /** A URL psql can use while the warehouse is open (for `embedded`, only while this process runs). */
  url: string;
  /** The embedded warehouse's directory; undefined for a PostgreSQL server. */
  dir: string | undefined;
  /** Ends the pool and, for `embedded`, closes the database and releases its lock. Safe to call twice. */
  close(): Promise<void>;
}

export interface OpenWarehouseOptions {
  /** Connections for a PostgreSQL server (default 10). The embedded warehouse always uses one. */
  poolMax?: number;
  /** What this process is, named to another process that finds the embedded warehouse in use. */
  purpose?: string;
  /** Embedded only: a directory other than `config.dataDir` (the demo keeps its own). */
  dir?: string;
  /** Embedded only: start from an empty warehouse. */
  fresh?: boolean;
  /**
   * Embedded only: where to serve it over the Postgres protocol for other clients too (psql, BI
   * tools); by default a free port on 127.0.0.1 that only this process uses.
   */
  listen?: { host: string; port: number; maxConnections: number };
}

/**
 * The warehouse the configuration names: the PostgreSQL server at DATABASE_URL, or, when that is
 * unset, the embedded PostgreSQL (PGlite) kept in PITWALL_DATA_DIR.
 *
 * The embedded warehouse is one Postgres session shared by every connection, so its pool has a
 * single connection: one client at a time means no two transactions can interleave on the
 * session, whatever pglite-socket does with several connections. Its migrations are applied on
 * open, since nothing but this process can reach it and a zero-setup start is the point of it.
 */
export async function openWarehouse(config: Config, logger: Logger, options: OpenWarehouseOptions = {}): Promise<Warehouse> {
  if (config.databaseUrl) {
    const pool = createPool(config.databaseUrl, { max: options.poolMax ?? 10, logger });
    await connectOnce(pool, config.databaseUrl);
    let closed: Promise<void> | undefined;
    return { kind: 'postgres', pool, url: config.databaseUrl, dir: undefined, close: () => (closed ??= pool.end()) };
  }
  const started = performance.now();
  const embedded = await startEmbeddedPostgres({
    dir: options.dir ?? config.dataDir,
    purpose: options.purpose ?? 'command',
    ...(options.fresh ? { fresh: true } : {}),
    ...options.listen,
  });
  const pool = createPool(embedded.url, { max: 1, logger });
  markSessionShared(pool);
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      try {
        await pool.end();
      } finally {
        await embedded.close();
      }
    })());
  try {
    await migrateDatabase(pool);
  } catch (err) {
    await close();
    throw err;
  }
  logger.debug({ dir: embedded.dir, url: embedded.url, ms: Math.round(performance.now() - started) }, 'embedded warehouse open');
  return { kind: 'embedded', pool, url: embedded.url, dir: embedded.dir, close };
}

/**
 * The pool connects lazily; connecting once here turns a server that cannot be reached (no such
 * database, nothing listening, a refused login) into one WarehouseUnavailableError before any
 * work starts, instead of a pg stack trace from wherever the first query happens to be.
 */
async function connectOnce(pool: pg.Pool, url: string): Promise<void> {
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw warehouseUnavailable(url, err);
  }
}
