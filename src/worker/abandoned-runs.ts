import type pg from 'pg';

import type { JobName } from '../sync/jobs.js';
import { tryJobLock } from '../sync/sql/job-lock.js';
import { markAbandoned } from '../sync/sql/sync-runs.js';

/**
 * At start-up: runs still marked `running` whose job lock nobody holds were left by a process
 * that died (its session, and the lock with it, ended). Each is marked `abandoned`. A job whose
 * lock is held is running right now in another process, so its row is left alone.
 */
export async function abandonDeadRuns(pool: pg.Pool, jobs: readonly JobName[]): Promise<Partial<Record<JobName, number>>> {
  const marked: Partial<Record<JobName, number>> = {};
  for (const job of jobs) {
    const lock = await tryJobLock(pool, job);
    if (!lock) continue;
    try {
      marked[job] = await markAbandoned(pool, job);
    } finally {
      await lock.release();
    }
  }
  return marked;
}
