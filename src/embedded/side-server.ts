import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { alive } from './data-dir-lock.js';
import { EmbeddedServerError } from './errors.js';
import { pgCtl, type PgTools } from './pg-tools.js';
import { logTail, serverLogFile, startFailure, superuserUrl } from './server-log.js';
import { freePort } from './server-port.js';

/** A cluster's server started for one job of pitwall's own (an upgrade), not for users. */
export interface SideServer {
  /** postgres:// with the superuser's password: for this process only. */
  url: string;
  port: number;
  data: string;
  /** Stops it (fast: sessions are ended); safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the cluster in `data` on a free port with extra settings on its command line (nothing
 * is written to its configuration), and remembers no port in the warehouse directory: the
 * port users and BI tools know stays the warehouse's own. Its log is the cluster's usual one.
 */
export async function startSideServer(tools: PgTools, data: string, password: string, settings: Record<string, string>): Promise<SideServer> {
  const port = await freePort();
  const options = [`-p ${port}`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
  const logFile = serverLogFile(data);
  try {
    await pgCtl(tools, data, ['start', '-w', '-t', '60', '-l', logFile, '-o', options]);
  } catch (err) {
    const said = (err as Error).message;
    throw new EmbeddedServerError(
      `the PostgreSQL server of ${data} did not start: ${startFailure(logTail(logFile)) ?? said.split('\n')[0]}`,
      `see its log, ${logFile}`,
      said,
    );
  }
  let stopped: Promise<void> | undefined;
  return {
    url: superuserUrl(password, port),
    port,
    data,
    stop: () => (stopped ??= stopServerOf(tools, data)),
  };
}

/**
 * Stops whatever server runs on `data` (one a killed process left behind), with pg_ctl, or by
 * signal when pg_ctl cannot (its binaries are of another version): nothing is removed or moved
 * from under a running server.
 */
export async function stopServerOf(tools: PgTools, data: string): Promise<void> {
  const pid = postmasterPid(data);
  if (pid === null || !alive(pid) || !isPostgres(pid)) return;
  try {
    await pgCtl(tools, data, ['stop', '-m', 'fast', '-w', '-t', '60']);
  } catch {
    // SIGINT is PostgreSQL's fast shutdown; SIGQUIT its immediate one, should that not do.
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
    if (alive(pid)) process.kill(pid, 'SIGQUIT');
  }
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
  if (alive(pid)) throw new EmbeddedServerError(`the PostgreSQL server of ${data} (pid ${pid}) does not stop`, `stop it (kill ${pid}) and try again`);
}

/** The postmaster's pid from `data/postmaster.pid`; null when there is none. */
export function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether `pid` runs a postgres program: a stale pid file's pid may since belong to anything. */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    // No /proc (macOS): pg_ctl, which checks the pid file the same way, is trusted.
    return true;
  }
}
