import type pg from 'pg';

import { JOB_NAMES, type JobName } from '../sync/jobs.js';

/** When each job last finished a successful run, from pitwall.sync_runs (any process's). */
export async function lastSuccesses(db: pg.Pool): Promise<Partial<Record<JobName, Date>>> {
  const { rows } = await db.query<{ job: string; at: Date }>(
    `SELECT job, max(finished_at) AS at FROM pitwall.sync_runs WHERE status = 'succeeded' GROUP BY job`,
  );
  const known = new Set<string>(JOB_NAMES);
  return Object.fromEntries(rows.filter((r) => known.has(r.job) && r.at).map((r) => [r.job, r.at]));
}
