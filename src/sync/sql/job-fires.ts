import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

/** graphile-worker's task that runs one source's sync job (src/worker/queue/engine.ts). */
export const SYNC_TASK = 'pitwall_sync';

/**
 * Attempts an engine job gets. A run's own failure never fails its job (the run records it and
 * the next fire tries again), so attempts are spent only by a worker that stopped or died
 * mid-run, whose job is handed to another worker; this many hand-overs in a row end it.
 */
export const SYNC_JOB_ATTEMPTS = 25;

/** The queue, and job key, of one source's job: its jobs run one at a time, across all workers. */
export const syncQueueName = (source: string, job: string): string => `pitwall:${source}:${job}`;

export interface JobFire {
  source: string;
  job: string;
  trigger: 'cron' | 'catch-up';
  /** Orders the fires of one source, job and trigger; a fire not after the latest queued is dropped. */
  fire: string;
}

/**
 * Puts one fire of a source's job on graphile-worker's queue, unless a worker has already queued
 * this fire (or a later one): returns the engine job's id and when it was queued (the database's
 * clock), or null when it was not queued. The
 * fire row and the job are written by one statement, so they commit together.
 *
 * The job key makes fires coalesce: while a job of the source and job waits, a new fire replaces
 * it instead of queueing a second one; while one runs, the next waits behind it in the serial
 * queue. The payload names the source, never its key.
 */
export async function queueFire(db: pg.Pool, fire: JobFire): Promise<{ id: string; queuedAt: Date } | null> {
  const queue = syncQueueName(fire.source, fire.job);
  const { rows } = await queryWithRetry<{ id: string; queued_at: Date }>(
    db,
    `WITH fired AS (
       INSERT INTO pitwall.job_fires AS f (source, job, trigger, fire) VALUES ($1, $2, $3, $4)
       ON CONFLICT (source, job, trigger) DO UPDATE SET fire = excluded.fire, queued_at = now()
        WHERE f.fire < excluded.fire
       RETURNING 1)
     SELECT (graphile_worker.add_job($5, $6::json, queue_name => $7, max_attempts => $8, job_key => $7)).id::text AS id, now() AS queued_at
       FROM fired`,
    [fire.source, fire.job, fire.trigger, fire.fire, SYNC_TASK, JSON.stringify({ source: fire.source, job: fire.job, trigger: fire.trigger, fire: fire.fire }), queue, SYNC_JOB_ATTEMPTS],
  );
  const row = rows[0];
  return row ? { id: row.id, queuedAt: row.queued_at } : null;
}

/** When `fire` was queued, by whichever worker; null when a later fire has replaced it, or none was. */
export async function fireQueuedAt(db: pg.Pool, fire: JobFire): Promise<Date | null> {
  const { rows } = await queryWithRetry<{ queued_at: Date }>(
    db,
    `SELECT queued_at FROM pitwall.job_fires WHERE source = $1 AND job = $2 AND trigger = $3 AND fire = $4`,
    [fire.source, fire.job, fire.trigger, fire.fire],
  );
  return rows[0]?.queued_at ?? null;
}

/** An engine job held by a dead worker: the job, how often it has been taken, and the worker holding it. */
export interface DeadWorkerJob {
  id: string;
  attempts: number;
  lockedBy: string;
}

/**
 * Engine jobs held by a worker that died, which graphile-worker itself would keep locked for four
 * hours. The job's source and job are read back from its queue's name (syncQueueName); its run is
 * the latest run of those started since the job was taken, a manual `sync` left aside (it is not
 * the job's, and may run while the job waits). A job is held by a dead worker when
 * - its run is `abandoned` (its process stopped beating and its advisory lock is free, see
 *   markDeadRuns), or
 * - it has no run at all `unstartedAfterMs` after it was taken: a live worker writes its run's row
 *   within moments of taking a job (a `skipped` one when another process holds the job's lock),
 *   so the worker died in between;
 * and no job of the same worker has a run still `running`, since the engine unlocks a worker's
 * jobs all together: a live worker's run is never handed to a second one.
 */
export async function jobsOfDeadWorkers(db: pg.Pool, unstartedAfterMs: number): Promise<DeadWorkerJob[]> {
  const { rows } = await queryWithRetry<{ id: string; attempts: number; locked_by: string }>(
    db,
    `WITH taken AS (
       SELECT j.id, j.attempts, j.locked_by, j.locked_at, latest.status
         FROM graphile_worker.jobs j
         LEFT JOIN LATERAL (
           SELECT r.status FROM pitwall.sync_runs r
            WHERE r.source = split_part(j.queue_name, ':', 2) AND r.job = split_part(j.queue_name, ':', 3)
              AND r.trigger <> 'manual' AND r.started_at >= j.locked_at
            ORDER BY r.run_id DESC LIMIT 1) latest ON true
        WHERE j.task_identifier = $1 AND j.locked_by IS NOT NULL)
     SELECT t.id::text AS id, t.attempts, t.locked_by FROM taken t
      WHERE (t.status = 'abandoned' OR (t.status IS NULL AND t.locked_at < now() - make_interval(secs => $2::double precision / 1000)))
        AND NOT EXISTS (SELECT 1 FROM taken o WHERE o.locked_by = t.locked_by AND o.status = 'running')`,
    [SYNC_TASK, unstartedAfterMs],
  );
  return rows.map((r) => ({ id: r.id, attempts: r.attempts, lockedBy: r.locked_by }));
}

/**
 * The outcome of the first run of a source's job that started at or after `since` (the
 * database's clock) and ended its engine job; null while there is none. Any trigger counts: a
 * later fire of the schedule replaces a queued catch-up's job (same job key), and its run catches
 * the job up as well. A run that was interrupted or abandoned handed its job back to the queue,
 * so the wait goes on for the run that takes it up.
 */
export async function finishedRunSince(db: pg.Pool, source: string, job: string, since: Date): Promise<string | null> {
  const { rows } = await queryWithRetry<{ status: string }>(
    db,
    `SELECT status FROM pitwall.sync_runs
      WHERE source = $1 AND job = $2 AND started_at >= $3
        AND status NOT IN ('running', 'interrupted', 'abandoned')
      ORDER BY run_id LIMIT 1`,
    [source, job, since],
  );
  return rows[0]?.status ?? null;
}
