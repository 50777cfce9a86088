import type pg from 'pg';

import type { RunRow as StatusRunRow } from '../../src/observability/status-queries.js';

/** The columns of a run the soak judges, as the status page reads them. */
export type RunRow = Pick<StatusRunRow, 'run_id' | 'job' | 'trigger' | 'status' | 'started_at' | 'error'>;

export interface RunCounts {
  /** Runs that took their job's lock: every status but `skipped`. */
  started: number;
  succeeded: number;
  failed: number;
  abandoned: number;
  interrupted: number;
  running: number;
  /** Runs that found their job's lock taken by a run still going. */
  skipped: number;
  /** Failed (or abandoned) runs whose job's next started run succeeded. */
  retriedToSuccess: number;
  /** Failed (or abandoned) runs whose job never succeeded after them. */
  notRecovered: number;
}

export type RunReport = Record<string, RunCounts> & { all: RunCounts };

export async function readRuns(pool: pg.Pool): Promise<RunRow[]> {
  const { rows } = await pool.query<RunRow>(
    `SELECT run_id::int AS run_id, job, trigger, status, started_at::text AS started_at, left(error, 300) AS error
       FROM pitwall.sync_runs ORDER BY run_id`,
  );
  return rows;
}

function empty(): RunCounts {
  return { started: 0, succeeded: 0, failed: 0, abandoned: 0, interrupted: 0, running: 0, skipped: 0, retriedToSuccess: 0, notRecovered: 0 };
}

const STATUSES = ['succeeded', 'failed', 'abandoned', 'interrupted', 'running', 'skipped'] as const;
const BAD = new Set(['failed', 'abandoned']);

/** Counts per job and overall; "retried to success" looks at each job's runs in order. */
export function countRuns(rows: readonly RunRow[]): RunReport {
  const report = { all: empty() } as RunReport;
  const byJob = new Map<string, RunRow[]>();
  for (const r of rows) byJob.set(r.job, [...(byJob.get(r.job) ?? []), r]);
  for (const [job, runs] of byJob) {
    const c = empty();
    for (const r of runs) {
      if (r.status !== 'skipped') c.started += 1;
      if ((STATUSES as readonly string[]).includes(r.status)) c[r.status as (typeof STATUSES)[number]] += 1;
    }
    const started = runs.filter((r) => r.status !== 'skipped');
    started.forEach((r, i) => {
      if (!BAD.has(r.status)) return;
      if (started[i + 1]?.status === 'succeeded') c.retriedToSuccess += 1;
      else if (!started.slice(i + 1).some((later) => later.status === 'succeeded')) c.notRecovered += 1;
    });
    report[job] = c;
    for (const key of Object.keys(c) as (keyof RunCounts)[]) report.all[key] += c[key];
  }
  return report;
}
