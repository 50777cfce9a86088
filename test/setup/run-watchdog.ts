import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { CLUSTERS_DIR } from '../../src/embedded/cluster-home.js';
import { pids, postmasters, readOr, under } from '../helpers/leaks.js';

import { dropRunDatabases, readRunDatabases } from './run-databases.js';

/**
 * What a test run leaves when it is stopped (Ctrl-C, a kill, a crash) is removed by a watchdog.
 * A server pg_ctl starts runs in a session of its own and outlives the run, and a stopped run
 * never reaches its teardown; so test/setup/run-dir.ts points TMPDIR at one directory per run
 * and starts this file, detached, to poll the run's PID. Once the run is gone, every PostgreSQL
 * server whose cluster is in that directory (or, relocated, in a cluster home naming a warehouse
 * directory there: src/embedded/cluster-home.ts) is stopped at once, and the directory and those
 * homes are removed; before that, the run's test processes, which a kill of the run alone may
 * leave behind, are killed, and the databases it made on a server outside it are dropped
 * (test/setup/run-databases.ts). The run's own teardown does the same, so a finished run leaves
 * nothing either, passed or failed.
 *
 * Run as `node bin/run-ts.js test/setup/run-watchdog.ts <run pid> <run directory> [other directories]`.
 */

const POLL_MS = 250;
const STOP_WAIT_MS = 10_000;
const DROP_WAIT_MS = 15_000;

/** Alive and not a zombie: a run killed but not yet reaped by its parent is gone for us. */
export function running(pid: number): boolean {
  const stat = readOr(`/proc/${pid}/stat`, '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}


/** Postmasters whose cluster belongs to `dir` (a relocated one's home names a warehouse directory in it), with their data directory. */
export function serversOf(dir: string): Map<number, string> {
  return new Map(
    [...postmasters()].filter(([, data]) => {
      const owner = readOr(join(dirname(data), 'warehouse-dir'), '').trim();
      return under(data, dir) || (owner !== '' && under(owner, dir));
    }),
  );
}

/**
 * Processes other than this one started with TMPDIR in `dir`, but for PostgreSQL's (which
 * sweepRunDir stops the way a server must be stopped): the run's test processes and what they
 * started. A run killed alone leaves its test processes without their parent, and one may live on.
 */
export function processesOf(dir: string): number[] {
  return pids().filter((pid) => {
    if (pid === process.pid || !running(pid)) return false;
    const argv0 = readOr(`/proc/${pid}/cmdline`, '').split('\0')[0] ?? '';
    if (argv0.endsWith('/postgres') || argv0.startsWith('postgres')) return false;
    const tmp = readOr(`/proc/${pid}/environ`, '').split('\0').find((entry) => entry.startsWith('TMPDIR='));
    return tmp !== undefined && under(tmp.slice('TMPDIR='.length), dir);
  });
}

/**
 * Stops every server of `dir` at once (SIGQUIT: immediate shutdown; SIGKILL if it lingers), then
 * removes `dir` and the homes of relocated clusters that belonged to it.
 */
export async function sweepRunDir(dir: string): Promise<void> {
  const servers = serversOf(dir);
  for (const pid of servers.keys()) signal(pid, 'SIGQUIT');
  const deadline = performance.now() + STOP_WAIT_MS;
  while ([...servers.keys()].some(running)) {
    if (performance.now() > deadline) for (const pid of servers.keys()) signal(pid, 'SIGKILL');
    await sleep(50);
  }
  for (const home of relocatedHomesOf(dir)) rmSync(home, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}

/** Homes of relocated clusters (running or not) whose warehouse directory is in `dir`. */
function relocatedHomesOf(dir: string): string[] {
  let homes: string[] = [];
  try {
    homes = readdirSync(CLUSTERS_DIR).map((name) => join(CLUSTERS_DIR, name));
  } catch {
    // No cluster was ever relocated on this machine.
  }
  return homes.filter((home) => {
    const owner = readOr(join(home, 'warehouse-dir'), '').trim();
    return owner !== '' && under(owner, dir);
  });
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** `also`: directories to remove besides (vitest's transform caches, one per project). */
async function watch(runPid: number, dir: string, also: string[]): Promise<void> {
  // The run's teardown ends this process with SIGTERM once it has swept the directory itself.
  while (running(runPid)) await sleep(POLL_MS);
  for (const pid of processesOf(dir)) signal(pid, 'SIGKILL');
  const databases = readRunDatabases(dir);
  // Best effort, and bounded: a server that is gone or does not answer must not hold up the sweep.
  if (databases) {
    const timer = new AbortController();
    const bound = sleep(DROP_WAIT_MS, undefined, { signal: timer.signal }).catch(() => undefined);
    await Promise.race([dropRunDatabases(databases).catch(() => undefined), bound]);
    timer.abort();
  }
  await sweepRunDir(dir);
  for (const other of also) rmSync(other, { recursive: true, force: true });
}

const [, entry, pidArg, dirArg, ...also] = process.argv;
if (entry?.endsWith('run-watchdog.ts') && pidArg && dirArg) await watch(Number(pidArg), dirArg, also);
