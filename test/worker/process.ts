import type pg from 'pg';
import { onTestFinished } from 'vitest';

import { OWNER_NAMESPACE } from '../../src/coordination/lock-ids.js';
import { createPool } from '../../src/db/pool.js';
import type { RunningCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/db.js';
import { useResource } from '../helpers/fixture.js';
import { startHostileUpstream } from '../helpers/hostile-upstream.js';

/**
 * Polls `sql` (a single number `n`) until it reaches `atLeast`; real time, since a real process is
 * being watched. `timeoutMs` is a hang guard below a test's own, not a budget for the machine.
 */
export async function waitForCount(db: pg.Pool, sql: string, atLeast: number, timeoutMs = 240_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const n = Number((await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0);
    if (n >= atLeast) return n;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${sql} to reach ${atLeast} (at ${n})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A schedule that does not fire during a test: a worker's runs are its start-up catch-ups. */
const NEVER = '0 0 1 1 *';
export const NO_SCHEDULES = { PITWALL_CRON_LIVE: NEVER, PITWALL_CRON_SEASON: NEVER, PITWALL_CRON_FULL: NEVER };

export const CLEAN_EXIT = { code: 0, stderr: '' };

/** An attempt timeout beyond the suite's hang guards: a request a test holds never times out. */
export const NEVER_TIMES_OUT = { PITWALL_REQUEST_TIMEOUT_MS: '600000' };

/**
 * The simulator behind a front that holds every request until `release()` (closed with the test):
 * a test's event for "this run is still going", where latency would only make it likely.
 */
export async function heldUpstream(simUrl: string): Promise<{ url: string; release: () => void }> {
  const front = await startHostileUpstream(simUrl, new Map());
  onTestFinished(() => front.close());
  return { url: front.url, release: front.hold() };
}

/** Stops the processes with SIGTERM: each one's exit code, and its stderr's end when that is not 0. */
export async function stopAll(processes: readonly RunningCli[]): Promise<Array<{ code: number | null; stderr: string }>> {
  for (const p of processes) p.child.kill('SIGTERM');
  const results = await Promise.all(processes.map((p) => p.exited));
  return results.map((r) => ({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-3000) }));
}

export interface LogLine {
  msg: string;
  source?: string;
  [field: string]: unknown;
}

/** The JSON lines a process logged on stderr. */
export const logLines = (stderr: string): LogLine[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);

/** The sources a worker's log says it is catching up with a full. */
export const catchingUpFull = (stderr: string): string[] =>
  logLines(stderr)
    .filter((l) => l.msg.startsWith('catching up: full'))
    .map((l) => l.source ?? '');

/** The database's clock now, the one sync_runs' timestamps are written on. */
export async function dbNow(db: pg.Pool): Promise<Date> {
  return (await db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
}

/**
 * Pairs of runs of one source's job whose times overlap (a run still going counts as going on
 * forever): two processes ran the job side by side. Skipped runs never ran.
 */
export async function overlappingRuns(db: pg.Pool): Promise<Array<{ source: string; job: string; a: number; b: number }>> {
  const { rows } = await db.query<{ source: string; job: string; a: number; b: number }>(
    `SELECT a.source, a.job, a.run_id::int AS a, b.run_id::int AS b
       FROM pitwall.sync_runs a JOIN pitwall.sync_runs b ON a.source = b.source AND a.job = b.job AND a.run_id < b.run_id
      WHERE a.status <> 'skipped' AND b.status <> 'skipped'
        AND tstzrange(a.started_at, COALESCE(a.finished_at, 'infinity')) && tstzrange(b.started_at, COALESCE(b.finished_at, 'infinity'))`,
  );
  return rows;
}

/** What the test's own connections call themselves, so that counting the others leaves them out. */
export const WATCHER = 'pitwall-test-watcher';

/**
 * A pool for the test's own queries while pitwall processes run, named so that
 * countConnections leaves it out; closed before the database.
 */
export function useWatcherPool(db: TestDatabase): pg.Pool {
  return useResource('the watcher pool', async () => createPool(db.url, { max: 2, applicationName: WATCHER }), (p) => p.end());
}

/** The connections of everyone but the watcher pool to its database now, and the OS pid each lock session names. */
export async function countConnections(watcher: pg.Pool): Promise<{ connections: number; lockSessions: number[] }> {
  const { rows } = await watcher.query<{ name: string }>(
    `SELECT application_name AS name FROM pg_stat_activity
      WHERE datname = current_database() AND backend_type = 'client backend' AND application_name <> $1`,
    [WATCHER],
  );
  const lockSessions = rows.flatMap((r) => /^pitwall worker (\d+)@/.exec(r.name)?.[1] ?? []).map(Number);
  return { connections: rows.length, lockSessions };
}

/** The sources each process owns now, by the OS pid its lock session names. */
export async function ownersNow(watcher: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await watcher.query<{ name: string; n: number }>(
    `SELECT a.application_name AS name, count(*)::int AS n
       FROM pg_locks l JOIN pg_stat_activity a USING (pid)
      WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objsubid = 2 AND l.granted
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      GROUP BY a.application_name`,
    [OWNER_NAMESPACE],
  );
  return new Map(rows.map((r) => [Number(/^pitwall worker (\d+)@/.exec(r.name)?.[1] ?? -1), r.n]));
}
