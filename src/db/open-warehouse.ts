import type pg from 'pg';

import type { Config } from '../config.js';
import { directoryBytes, megabytes } from '../embedded/directory-size.js';
import { EmbeddedServerError } from '../embedded/errors.js';
import { legacyWarehouseNotice } from '../embedded/legacy.js';
import { openEmbeddedServer, type EmbeddedServer } from '../embedded/server.js';
import type { Logger } from '../log.js';
import { maskUrl } from '../secrets.js';

import { logCatalogKeys } from './catalog-keys.js';
import { migrateDatabase, migrationStatus, reconcileKeys } from './migrate.js';
import { createPool, endPool } from './pool.js';
import { warehouseUnavailable, WarehouseUnavailableError } from './warehouse-unavailable.js';

export type WarehouseKind = 'postgres' | 'embedded';

export interface Warehouse {
  kind: WarehouseKind;
  pool: pg.Pool;
  /** The warehouse's URL, with its password: for this process's clients, never for printing. */
  url: string;
  /** The embedded warehouse's directory; undefined for a PostgreSQL server. */
  dir: string | undefined;
  /** Embedded only: whether this process started the server, and how long starting or joining it took. */
  server?: { started: boolean; startMs: number; port: number };
  /** Embedded only: what was done that a user should know of (its cluster kept outside `dir`), also logged at info. */
  notice?: string;
  /** Embedded only: PGDATA when it is kept outside `dir`, linked from it (as root; src/embedded/cluster-home.ts). */
  dataElsewhere?: string;
  /** Ends the pool and, for `embedded`, leaves the server (the last to leave stops it). Safe to call twice. */
  close(): Promise<void>;
}

export interface OpenWarehouseOptions {
  /** Connections in this process's pool (default 10). */
  poolMax?: number;
  /** What this process is, named to another process that waits on the embedded warehouse's lock. */
  purpose?: string;
  /** Embedded only: a directory other than `config.dataDir` (the demo keeps its own). */
  dir?: string;
  /** Embedded only: empty the warehouse first (the demo's own directory; never DATABASE_URL's). */
  fresh?: boolean;
  /**
   * Embedded only: what to do on open with the migrations a warehouse made by an earlier pitwall
   * has pending. `apply` them (the worker's start); `leave` them to the caller (`pitwall
   * migrate`, which applies and reports them itself); or, the default, `refuse` to go on and
   * name `pitwall migrate`: a migration can rebuild every key of a large warehouse, which no
   * `status` or `sql` should start by the way. A new, empty warehouse is migrated on open unless
   * told to `leave` it.
   */
  pending?: 'apply' | 'leave' | 'refuse';
  /**
   * Embedded only: log where the data is when it is kept outside the directory, every time (the
   * worker's start), not only when it was first placed there.
   */
  sayWhereDataLives?: boolean;
}

/** Every schema pitwall's migrations create, drizzle's bookkeeping included. */
const PITWALL_SCHEMAS = ['mrp', 'analytics', 'pitwall', 'drizzle'];

/**
 * The warehouse the configuration names: the PostgreSQL server at DATABASE_URL, or, when that is
 * unset, the embedded one: a PostgreSQL server pitwall runs itself on the data in
 * PITWALL_DATA_DIR (see src/embedded/server.ts), started or joined here. A new one is migrated
 * on open, since a zero-setup start is the point of it; an existing one only where
 * `options.pending` says so.
 */
export async function openWarehouse(config: Config, logger: Logger, options: OpenWarehouseOptions = {}): Promise<Warehouse> {
  const max = options.poolMax ?? 10;
  if (config.databaseUrl) {
    const pool = createPool(config.databaseUrl, { max, logger, deadlineMs: config.dbDeadlineMs });
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= endPool(pool));
    try {
      await connectOnce(pool, config.databaseUrl);
      if (options.pending !== 'leave') await bringUpToDate(pool, { name: maskUrl(config.databaseUrl), embedded: false }, options.pending === 'apply', logger);
    } catch (err) {
      await close();
      throw err;
    }
    return { kind: 'postgres', pool, url: config.databaseUrl, dir: undefined, close };
  }
  const server = await startEmbedded(config, logger, options);
  const pool = createPool(server.url, { max, logger, deadlineMs: config.dbDeadlineMs });
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      try {
        await endPool(pool);
      } finally {
        await server.close();
      }
    })());
  try {
    if (options.fresh) await pool.query(`DROP SCHEMA IF EXISTS ${PITWALL_SCHEMAS.join(', ')} CASCADE`);
    if (options.pending !== 'leave') await bringUpToDate(pool, { name: server.dir, embedded: true }, options.pending === 'apply', logger);
  } catch (err) {
    await close();
    throw err;
  }
  const { started, startMs, port, notice, dataElsewhere } = server;
  logger.debug({ dir: server.dir, port, started, ms: startMs }, 'embedded warehouse open');
  return {
    kind: 'embedded',
    pool,
    url: server.url,
    dir: server.dir,
    server: { started, startMs, port },
    ...(notice ? { notice } : {}),
    ...(dataElsewhere ? { dataElsewhere } : {}),
    close,
  };
}

/**
 * Applies the warehouse's pending migrations, or refuses to go on where `migrate` is false: one
 * line naming the command that applies them. A new, empty embedded warehouse is migrated all the
 * same (a zero-setup start is its point); a database at DATABASE_URL is never given pitwall's
 * schemas by the way, only by `pitwall migrate` or the worker's start. Where it may migrate, the
 * embedded warehouse's keys that depend on the server's version are reconciled even with nothing
 * pending: its server may have been upgraded since.
 */
async function bringUpToDate(pool: pg.Pool, warehouse: { name: string; embedded: boolean }, migrate: boolean, logger: Logger): Promise<void> {
  const { applied: before, pending } = await migrationStatus(pool);
  if (pending === 0) {
    if (migrate && warehouse.embedded) logCatalogKeys(logger, await reconcileKeys(pool));
    return;
  }
  if (!migrate && (before > 0 || !warehouse.embedded)) {
    throw new WarehouseUnavailableError({
      warehouse: warehouse.name,
      problem: before === 0 ? 'it holds no pitwall tables yet' : `it was made by an earlier pitwall and ${pending} migration${pending === 1 ? ' is' : 's are'} pending`,
      remedy:
        before === 0
          ? 'run `pitwall migrate` (or start `pitwall worker`) to create them'
          : 'run `pitwall migrate` (or start `pitwall worker`) to apply them; on a large warehouse this can take a while, and it says how long it took',
    });
  }
  const { applied, ms, keys } = await migrateDatabase(pool);
  if (applied > 0) logger.info({ applied, ms }, `${warehouse.embedded ? 'embedded warehouse: ' : ''}migrations applied: ${applied} in ${ms} ms`);
  logCatalogKeys(logger, keys);
}

/**
 * The embedded warehouse's server, started or joined on the port PITWALL_SQL_PORT asks for; its
 * failures as a WarehouseUnavailableError, and in the log what a user should know: a PGlite
 * directory from pitwall 0.1, a cluster kept outside the directory, a server already running on
 * another port than the one asked for.
 */
async function startEmbedded(config: Config, logger: Logger, options: OpenWarehouseOptions): Promise<EmbeddedServer> {
  const dir = options.dir ?? config.dataDir;
  const legacy = legacyWarehouseNotice(dir);
  if (legacy) logger.warn(legacy);
  const server = await openEmbeddedServer({
    dir,
    purpose: options.purpose ?? 'command',
    setting: options.dir === undefined ? 'PITWALL_DATA_DIR' : 'the warehouse directory',
    ...(config.sqlPort !== undefined ? { port: config.sqlPort } : {}),
    onHousekeeping: (line) => logger.info(line),
  }).catch((err: unknown) => {
    if (!(err instanceof EmbeddedServerError)) throw err;
    throw new WarehouseUnavailableError({ warehouse: dir, problem: err.problem, remedy: err.remedy }, { cause: err, exitStatus: err.exitStatus });
  });
  if (server.notice) logger.info(server.notice);
  else if (options.sayWhereDataLives && server.dataElsewhere) logger.info({ data: server.dataElsewhere }, dataElsewhereLine(server.dir, server.dataElsewhere));
  if (config.sqlPort !== undefined && server.port !== config.sqlPort) {
    // Joined a server another pitwall process started before PITWALL_SQL_PORT was set (or changed).
    logger.warn(
      `the embedded warehouse's server is already running on port ${server.port}, not on PITWALL_SQL_PORT's ${config.sqlPort}; it moves there when every pitwall process and client using it has stopped`,
    );
  }
  return server;
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

/** Where the data of a warehouse directory is when it is kept elsewhere, how much, and how to remove both. */
export function dataElsewhereLine(dir: string, data: string): string {
  return `the PostgreSQL data of the embedded warehouse in ${dir} (${megabytes(directoryBytes(data))}) is kept in ${data} (linked from ${dir}/postgres), where its server's user can reach it; pitwall remove-warehouse removes both`;
}
