import type pg from 'pg';

import type { HealthReport } from '../observability/http-server.js';

import type { Scheduler } from './scheduler.js';

/** A database that takes longer than this to answer `SELECT 1` counts as unreachable. */
export const DATABASE_CHECK_TIMEOUT_MS = 2_000;

async function databaseReachable(pool: pg.Pool, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer to SELECT 1 within ${timeoutMs} ms`), timeoutMs);
  });
  const query = pool.query('SELECT 1').then(
    () => null,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  try {
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Healthy while the schedules run, the worker holds its lock session within its lease (without
 * it, it owns nothing and runs nothing), and the database answers.
 */
export async function checkHealth(opts: {
  pool: pg.Pool;
  scheduler: Pick<Scheduler, 'alive' | 'nextRuns'> | undefined;
  stopping: boolean;
  /** Whether the worker holds its lock session within its lease; absent where there is none to hold. */
  session?: () => boolean;
  timeoutMs?: number;
}): Promise<HealthReport> {
  const scheduler = opts.stopping ? 'stopping' : opts.scheduler?.alive() ? 'running' : 'stopped';
  const session = opts.session === undefined ? undefined : opts.session() ? 'held' : 'lost';
  const dbError = await databaseReachable(opts.pool, opts.timeoutMs ?? DATABASE_CHECK_TIMEOUT_MS);
  const report: HealthReport = {
    ok: scheduler === 'running' && session !== 'lost' && dbError === null,
    scheduler,
    ...(session ? { lockSession: session } : {}),
    database: dbError === null ? 'ok' : 'unreachable',
    nextRuns: opts.scheduler?.nextRuns() ?? {},
  };
  if (scheduler !== 'running') report.reason = `scheduler is ${scheduler}`;
  else if (dbError !== null) report.reason = `database unreachable: ${dbError}`;
  else if (session === 'lost') report.reason = 'no lock session: the worker owns no source and runs nothing until it has a new one';
  return report;
}
