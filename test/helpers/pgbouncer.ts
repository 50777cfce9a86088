import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { inject } from 'vitest';

import { serverUser } from '../../src/embedded/server-user.js';

import { useResource } from './fixture.js';
import { freePort } from './ports.js';

export type PoolMode = 'session' | 'transaction' | 'statement';

/** What CI runs (.ci/run) and what a missing pgbouncer's error says to run. */
export const PGBOUNCER_INSTALL = 'apt-get update && apt-get install -y pgbouncer';

export interface RunningPgBouncer {
  mode: PoolMode;
  port: number;
  /** `url` (a database of the tests' server) as reached through this PgBouncer: its user and password are kept, and ignored. */
  through(url: string): string;
  close(): Promise<void>;
}

/** Debian puts pgbouncer in /usr/sbin, which a user's PATH may lack. */
function findPgBouncer(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const path = join(dir, 'pgbouncer');
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // Not here.
    }
  }
  throw new Error(`pgbouncer is not installed (looked on PATH and in /usr/sbin); the PgBouncer tests need it, as CI has it: ${PGBOUNCER_INSTALL}`);
}

/** The [major, minor] version of the pgbouncer at `bin`. */
function versionOf(bin: string): [number, number] {
  const m = /PgBouncer (\d+)\.(\d+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }));
  if (!m) throw new Error(`${bin} --version names no PgBouncer version`);
  return [Number(m[1]), Number(m[2])];
}

/** A value in a PgBouncer connection string, quoted when it needs to be. */
const value = (text: string) => (/^[\w.@%+:/-]+$/.test(text) ? text : `'${text.replaceAll("'", "''")}'`);

/**
 * Every database of the tests' server, logged into as its admin URL's user whatever the client
 * says (auth_type any), so that it works with a server that wants a password (the suite's own, or
 * a container's) as with one that trusts. No Unix socket: nothing but the test's loopback port.
 */
function config(server: URL, mode: PoolMode, port: number, version: [number, number]): string {
  const target = [`host=${value(server.hostname)}`, `port=${server.port || '5432'}`, `user=${value(decodeURIComponent(server.username) || 'postgres')}`];
  if (server.password) target.push(`password=${value(decodeURIComponent(server.password))}`);
  return [
    '[databases]',
    `* = ${target.join(' ')}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = any',
    `pool_mode = ${mode}`,
    'max_client_conn = 500',
    'default_pool_size = 20',
    // Tracking prepared statements (1.21 and later; on by default from 1.24) off, so that a
    // transaction pool is the same on every version: one that loses them, as 1.18's does (1.18
    // refuses a setting it does not know).
    ...(version[0] > 1 || version[1] >= 21 ? ['max_prepared_statements = 0'] : []),
    '',
  ].join('\n');
}

/** Resolves once `port` takes connections; rejects with the process's output if it ended first. */
async function listening(child: ChildProcess, port: number, output: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}): ${output().slice(-2000)}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      const settle = (answer: boolean) => {
        socket.destroy();
        resolve(answer);
      };
      socket.once('connect', () => settle(true)).once('error', () => settle(false));
    });
    if (open) return;
    if (performance.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within ${timeoutMs} ms: ${output().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // SIGTERM: PgBouncer's immediate shutdown, closing its client and server connections.
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A real PgBouncer in `mode` in front of the tests' PostgreSQL, on a free loopback port. It
 * refuses to run as root: as root it runs as the user the embedded server would (`-u`), in a
 * directory given to that user (the config holds the server's password, so it is kept private;
 * os.tmpdir() is the run's directory, which every user can pass through).
 */
export async function startPgBouncer(mode: PoolMode, serverUrl: string = inject('pgAdminUrl')): Promise<RunningPgBouncer> {
  const bin = findPgBouncer();
  const version = versionOf(bin);
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-pgbouncer-'));
  try {
    // A port free a moment ago may be taken before PgBouncer binds it: then another one.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      const ini = join(dir, 'pgbouncer.ini');
      writeFileSync(ini, config(new URL(serverUrl), mode, port, version), { mode: 0o600 });
      if (user) for (const path of [dir, ini]) chownSync(path, user.uid, user.gid);
      let output = '';
      const child = spawn(bin, [...(user ? ['-u', user.name] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      try {
        await listening(child, port, () => output);
      } catch (err) {
        await stop(child);
        if (attempt < 3 && /Address already in use/.test(output)) continue;
        throw err;
      }
      return {
        mode,
        port,
        through: (url) => {
          const u = new URL(url);
          u.hostname = '127.0.0.1';
          u.port = String(port);
          return u.toString();
        },
        close: async () => {
          await stop(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** A PgBouncer in `mode` (see startPgBouncer) for the block, stopped when it ends. */
export function usePgBouncer(mode: PoolMode): RunningPgBouncer {
  return useResource(`the ${mode}-mode PgBouncer`, () => startPgBouncer(mode), (b) => b.close());
}
