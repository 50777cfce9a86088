import type pg from 'pg';

import { JOB_NAMES, type JobName } from '../sync/jobs.js';

export interface LastSuccess {
  source: string;
  job: JobName;
  at: Date;
}

/** When each source's jobs last finished a successful run, from pitwall.sync_runs (any process's). */
export async function lastSuccesses(db: pg.Pool): Promise<LastSuccess[]> {
  const { rows } = await db.query<{ source: string; job: string; at: Date | null }>(
    `SELECT source, job, max(finished_at) AS at FROM pitwall.sync_runs WHERE status = 'succeeded' GROUP BY source, job`,
  );
  const known = new Set<string>(JOB_NAMES);
  return rows.filter((r): r is { source: string; job: JobName; at: Date } => known.has(r.job) && r.at !== null);
}
