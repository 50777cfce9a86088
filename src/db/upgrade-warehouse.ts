import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import pLimit from 'p-limit';
import type pg from 'pg';

import { postgresBinaries, PREVIOUS_MAJOR, previousPackageRoot, type BinariesOptions } from '../embedded/binaries.js';
import { currentClusterData } from '../embedded/cluster-home.js';
import { clusterMajor, upgradePaths, type UpgradePaths } from '../embedded/cluster-version.js';
import { withDataDirLock } from '../embedded/data-dir-lock.js';
import { EmbeddedServerError } from '../embedded/errors.js';
import { initCluster } from '../embedded/init-cluster.js';
import type { PgTools } from '../embedded/pg-tools.js';
import { READER_ROLE, ensureReaderRole } from '../embedded/reader-role.js';
import { otherLiveClients } from '../embedded/server-clients.js';
import { serverUser } from '../embedded/server-user.js';
import { postmasterPid, startSideServer, stopServerOf, type SideServer } from '../embedded/side-server.js';
import { removeBuilding, settleUpgrade, swapIn } from '../embedded/upgrade-swap.js';
import type { Logger } from '../log.js';

import { logCatalogKeys } from './catalog-keys.js';
import { copySequences, copyTable, tablesToCopy, type TableToCopy } from './copy-tables.js';
import { migrateToLevel } from './migrate-to-level.js';
import { migrationStatus } from './migrate.js';
import { createPool } from './pool.js';
import { CANONICAL_TEXT_OPTIONS, tableChecksum } from './table-checksum.js';
import { WarehouseUpgradeError } from './warehouse-upgrade-error.js';

/**
 * Tables copied at once. Two streams keep both servers busy (one reads and prints while the other
 * parses and indexes) on the two cores pitwall is sized for; more only queue for the same cores.
 */
const COPY_STREAMS = 2;

export interface UpgradeWarehouseOptions {
  /** The warehouse directory (PITWALL_DATA_DIR). */
  dir: string;
  logger: Logger;
  /** Aborted (Ctrl-C): stops after the table being copied, removes the new cluster, leaves the old one as it was. */
  signal?: AbortSignal;
  /** Each side's PostgreSQL: by default the previous major's alias package, and this release's own. */
  binaries?: { from?: BinariesOptions; to?: BinariesOptions };
}

export interface UpgradeReport {
  /** `upgraded` now; `finished`: an earlier run had done all but the last rename; `current`: nothing to do. */
  outcome: 'upgraded' | 'finished' | 'current';
  dir: string;
  /** PGDATA: `dir/postgres` or where its link points. */
  data: string;
  /** Where the old cluster is kept, when it is. */
  kept: string | null;
  from: number;
  to: number;
  ms: number;
  tables: number;
  rows: number;
  /** Tables only the old warehouse had (not pitwall's): not carried. */
  leftOut: string[];
  /** Roles of the old server other than pitwall's own: not carried. */
  rolesLeft: string[];
  /** Whether the read-only role pitwall_reader was made again, with its password. */
  reader: boolean;
}

/**
 * Moves the embedded warehouse in `dir` from a cluster of the previous PostgreSQL major version
 * to one of this release's, never stranding its data:
 *
 * 1. The old cluster's server is started from the previous version's binaries (an npm alias,
 *    see binaries.ts) on a free port with `default_transaction_read_only`: nothing is written
 *    to it but what any start and stop write (its pid file, log, a shutdown checkpoint).
 * 2. A new cluster is made beside it (`postgres.pg18.new`, a sibling, so every move is a rename
 *    on one file system), with the same superuser password, and given the schema the old one
 *    has: its migrations, to the same level (pending ones stay pending: the command applies them once the new cluster is in place).
 * 3. Every table is streamed across with COPY, two at a time; then the
 *    sequences, the read-only role (with its password file's password), and ANALYZE.
 * 4. Every table's rows and digest are compared on both servers. Only then, both servers
 *    stopped, the new cluster is marked complete and swapped in by two renames; the old one is
 *    kept as `postgres.pg17` until the user removes it.
 *
 * COPY rather than logical replication: replication needs the old server restarted with
 * wal_level=logical and a publication and a replication slot written into it, and a slot left
 * by an interrupted run would hold the old cluster's WAL for ever should the user go back to it;
 * COPY reads a server that may not write, and was faster too: on the medium world 10.4 s of
 * copy against 14.6 s for replication's initial sync, measured once (docs/warehouse.md).
 *
 * Interrupted anywhere (Ctrl-C, kill -9), a run again starts over: servers left running are
 * stopped, a half-built new cluster removed, and an interruption between the two renames finished
 * (settleUpgrade). Everything happens under the directory's lock, so no pitwall starts a server
 * on it meanwhile.
 */
export async function upgradeWarehouse(options: UpgradeWarehouseOptions): Promise<UpgradeReport> {
  const dir = resolve(options.dir);
  try {
    if (!existsSync(join(dir, 'password'))) throw new EmbeddedServerError('it holds no embedded warehouse', 'check PITWALL_DATA_DIR');
    const user = serverUser();
    const to: PgTools = { user, bin: postgresBinaries(user, options.binaries?.to) };
    // Resolved only when a cluster of that version is there: an upgraded warehouse needs no old binaries.
    const from = (): PgTools => ({ user, bin: postgresBinaries(user, options.binaries?.from ?? { packageRoot: previousPackageRoot() }) });
    return await withDataDirLock(dir, 'upgrade-warehouse', async () => {
      const paths = upgradePaths(currentClusterData(dir), PREVIOUS_MAJOR, to.bin.major);
      await stopLeftovers(dir, paths, from, to);
      const began = performance.now();
      const start = settleUpgrade(paths);
      const report = { dir, data: paths.data, from: paths.from, to: paths.to, tables: 0, rows: 0, leftOut: [], rolesLeft: [], reader: false };
      if (start.state === 'upgraded') return { ...report, outcome: 'current', kept: start.kept ? paths.kept : null, ms: 0 };
      if (start.state === 'finished') return { ...report, outcome: 'finished', kept: paths.kept, ms: Math.round(performance.now() - began) };
      const copied = await build(dir, paths, from(), to, options);
      return { ...report, ...copied, outcome: 'upgraded', kept: paths.kept, ms: Math.round(performance.now() - began) };
    });
  } catch (err) {
    if (!(err instanceof EmbeddedServerError)) throw err;
    throw new WarehouseUpgradeError({ warehouse: dir, problem: err.problem, remedy: err.remedy }, { cause: err, exitStatus: err.exitStatus });
  }
}

/**
 * No server may run on a directory about to be moved or removed: the new cluster's server of a
 * killed run is stopped, and so is the old cluster's when no pitwall process uses it (a killed
 * run's, or one left by a killed previous release). One that pitwall processes use belongs to the
 * previous release's worker or serve-sql: they must stop first.
 */
async function stopLeftovers(dir: string, paths: UpgradePaths, from: () => PgTools, to: PgTools): Promise<void> {
  await stopServerOf(to, paths.building);
  if (clusterMajor(paths.data) !== paths.from || postmasterPid(paths.data) === null) return;
  const users = otherLiveClients(dir);
  if (users.length > 0) {
    throw new EmbeddedServerError(
      `its PostgreSQL ${paths.from} server is in use by pitwall process${users.length === 1 ? '' : 'es'} ${users.join(', ')}`,
      'stop them (the previous release’s worker or serve-sql) and run again',
    );
  }
  await stopServerOf(from(), paths.data);
}

/** What the copy says of itself in the report. */
type Copied = Pick<UpgradeReport, 'tables' | 'rows' | 'leftOut' | 'rolesLeft' | 'reader'>;

async function build(dir: string, paths: UpgradePaths, from: PgTools, to: PgTools, options: UpgradeWarehouseOptions): Promise<Copied> {
  const { logger, signal } = options;
  const password = readFileSync(join(dir, 'password'), 'utf8').trim();
  let source: SideServer | undefined;
  let target: SideServer | undefined;
  let swapped = false;
  try {
    source = await startSideServer(from, paths.data, password, { default_transaction_read_only: 'on' });
    await initCluster(to, paths.building, dir, password);
    // The new cluster is thrown away if anything fails before the swap, and its servers stop
    // cleanly (flushing all) before it: nothing is lost by not waiting for each commit's flush.
    target = await startSideServer(to, paths.building, password, { synchronous_commit: 'off' });
    logger.info(`upgrading ${dir} from PostgreSQL ${paths.from} to ${paths.to}: the new cluster is built in ${paths.building}`);
    const copied = await copyWarehouse(source.url, target.url, dir, logger, signal);
    await target.stop();
    await source.stop();
    signal?.throwIfAborted();
    swapIn(paths, to.user, `PostgreSQL ${paths.from} (${paths.kept}) upgraded to ${paths.to} on ${new Date().toISOString()}`);
    swapped = true;
    return copied;
  } finally {
    await target?.stop().catch(() => undefined);
    await source?.stop().catch(() => undefined);
    if (!swapped) removeBuilding(paths);
  }
}

/** Compares a table's rows and digest on both servers; a difference fails the upgrade before anything is moved. */
async function checkCopy(source: pg.Pool, target: pg.Pool, table: TableToCopy, signal: AbortSignal | undefined): Promise<void> {
  signal?.throwIfAborted();
  const [was, is] = await Promise.all([tableChecksum(source, table), tableChecksum(target, table)]);
  if (was.rows === is.rows && was.digest === is.digest) return;
  throw new EmbeddedServerError(
    `the copy of ${table.name} differs from the original (${is.rows} rows for ${was.rows}); the new cluster is removed and the old one left as it was`,
    'report this with the server logs; the old warehouse still works with the previous pitwall release',
  );
}

/** Pools that print values the same way on both servers (table-checksum.ts). */
function canonicalPool(url: string, logger: Logger): pg.Pool {
  return createPool(`${url}?options=${encodeURIComponent(CANONICAL_TEXT_OPTIONS)}`, { max: 2 * COPY_STREAMS, logger, applicationName: 'pitwall upgrade-warehouse' });
}

async function copyWarehouse(sourceUrl: string, targetUrl: string, dir: string, logger: Logger, signal: AbortSignal | undefined): Promise<Copied> {
  const source = canonicalPool(sourceUrl, logger);
  const target = canonicalPool(targetUrl, logger);
  try {
    // At the old one's level; at the full level that is `pitwall migrate`, which also declares the
    // keys this server version holds (NOT ENFORCED on 18). Below it, the command migrates after the swap.
    const { applied } = await migrationStatus(source);
    const migrated = await migrateToLevel(target, applied);
    if (migrated) logCatalogKeys(logger, migrated.keys);
    const { tables, leftOut } = await tablesToCopy(source, target);
    const { rows: roles } = await source.query<{ rolname: string }>(
      `SELECT rolname FROM pg_roles WHERE rolname !~ '^pg_' AND rolname <> current_user ORDER BY 1`,
    );
    const rows = await copyRows(source, target, tables, logger, signal);
    await copySequences(source, target);
    const reader = roles.some((r) => r.rolname === READER_ROLE);
    if (reader) await ensureReaderRole(target, dir);
    // The new cluster has no statistics yet; the loader's plans depend on them.
    await target.query('ANALYZE');
    const checking = pLimit(COPY_STREAMS);
    await Promise.all(tables.map((table) => checking(() => checkCopy(source, target, table, signal))));
    logger.info(`checked ${tables.length} tables: each holds the same rows as the original`);
    return { tables: tables.length, rows, leftOut, rolesLeft: roles.map((r) => r.rolname).filter((r) => r !== READER_ROLE), reader };
  } finally {
    await Promise.all([source.end(), target.end()]);
  }
}

/**
 * COPY of every table, largest first, COPY_STREAMS at a time, each on a pair of connections of
 * its own, written with triggers and foreign keys off (copy-tables.ts). The old server takes no
 * writes (default_transaction_read_only, on a port only this process knows, under the
 * directory's lock), so the streams need no shared snapshot to read one consistent state.
 */
async function copyRows(source: pg.Pool, target: pg.Pool, tables: TableToCopy[], logger: Logger, signal: AbortSignal | undefined): Promise<number> {
  const { rows: sizes } = await source.query<{ name: string; bytes: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name, pg_total_relation_size(c.oid)::text AS bytes FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace`,
  );
  const bytes = new Map(sizes.map((r) => [r.name, Number(r.bytes)]));
  const largestFirst = [...tables].sort((a, b) => (bytes.get(b.name) ?? 0) - (bytes.get(a.name) ?? 0));
  const limit = pLimit(COPY_STREAMS);
  let done = 0;
  const copied = await Promise.all(
    largestFirst.map((table) =>
      limit(async () => {
        signal?.throwIfAborted();
        const began = performance.now();
        const reading = await source.connect();
        const writing = await target.connect().catch((err: unknown) => {
          reading.release();
          throw err;
        });
        let rows = 0;
        try {
          await writing.query('SET session_replication_role = replica');
          rows = await copyTable(reading, writing, table, signal);
        } catch (err) {
          limit.clearQueue();
          throw err;
        } finally {
          // Closed, not handed back: a COPY cut off mid-stream leaves a connection unusable, and
          // the writing one's session_replication_role must not outlive this table.
          reading.release(true);
          writing.release(true);
        }
        done += 1;
        logger.info({ table: table.name, rows, ms: Math.round(performance.now() - began) }, `copied ${done} of ${tables.length}: ${table.name}`);
        return rows;
      }),
    ),
  );
  return copied.reduce((a, b) => a + b, 0);
}
