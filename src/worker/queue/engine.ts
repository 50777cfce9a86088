import { Logger as GraphileLogger, makeWorkerUtils, run, runMigrations, type LogLevel, type Runner, type Task, type WorkerUtils } from 'graphile-worker';
import type pg from 'pg';
import { z } from 'zod';

import type { Logger } from '../../log.js';
import { STALE_AFTER_MS } from '../../sync/heartbeat.js';
import { JOB_NAMES } from '../../sync/jobs.js';
import { markDeadRuns } from '../../sync/sql/dead-runs.js';
import { jobsOfDeadWorkers, SYNC_TASK } from '../../sync/sql/job-fires.js';
import type { RunSummary } from '../../sync/summary.js';
import { catchUpDelayMs } from '../catch-up-delay.js';

/**
 * How often each worker looks for engine jobs whose run died (kill -9, a lost machine), marking
 * dead runs first: a run is dead STALE_AFTER_MS after its last heartbeat.
 */
export const DEAD_JOB_SWEEP_MS = 10_000;

/** graphile-worker's poll for jobs that became available without a notification (its default). */
const POLL_INTERVAL_MS = 2_000;

/**
 * From a dead worker's job being found to its run starting elsewhere: a sweep at most
 * DEAD_JOB_SWEEP_MS later, the next poll, and 3 s for the new run to start.
 */
export const HAND_ON_MS = DEAD_JOB_SWEEP_MS + POLL_INTERVAL_MS + 3_000;

/** The bound on a dead worker's job starting again elsewhere, from its run's last heartbeat (found dead after STALE_AFTER_MS): 30 s with the defaults. */
export const TAKEOVER_BOUND_MS = STALE_AFTER_MS + HAND_ON_MS;

/**
 * A job taken this long ago without a run is held by a worker that died between taking it and
 * recording its run (a live one records it within moments; see jobsOfDeadWorkers). Four times a
 * run's staleness, so a worker waiting briefly for a database connection is never taken for dead.
 */
export const UNSTARTED_JOB_AFTER_MS = 4 * STALE_AFTER_MS;

/** The bound on such a job starting again elsewhere, from when the dead worker took it: 75 s with the defaults. */
export const UNSTARTED_TAKEOVER_BOUND_MS = UNSTARTED_JOB_AFTER_MS + HAND_ON_MS;

/** What a queued job asks for: the payload names the source, never its key. */
const payloadSchema = z.object({
  source: z.string(),
  job: z.enum(JOB_NAMES),
  trigger: z.enum(['cron', 'catch-up']),
  fire: z.string(),
});

export type QueuedJob = z.output<typeof payloadSchema>;

/**
 * Creates or migrates the job queue's schema (graphile_worker). `pitwall migrate` calls it, so
 * that workers started together find it ready; a worker's start does the same when it is not.
 */
export async function migrateJobQueue(pool: pg.Pool, logger: Logger): Promise<void> {
  await runMigrations({ pgPool: pool, logger: engineLogger(logger) });
}

export interface JobEngineOptions {
  pool: pg.Pool;
  logger: Logger;
  /** Jobs this worker runs at once, across all its sources (PITWALL_WORKER_JOBS). */
  concurrency: number;
  /** The sources this worker can run; every worker of a warehouse should name the same ones. */
  sources: readonly string[];
  /** Runs one queued job; the run records its own outcome in pitwall.sync_runs. */
  run: (job: QueuedJob) => Promise<RunSummary>;
}

export interface JobEngine {
  /** False once the engine has stopped by itself (it lost its database for good). */
  alive(): boolean;
  /** Takes no new job and waits for the running ones, which the worker's drain ends. Safe to call twice. */
  stop(): Promise<void>;
}

/** graphile-worker's log lines into ours; its routine chatter (connected, job completed) at debug. */
export function engineLogger(logger: Logger): GraphileLogger {
  return new GraphileLogger((scope) => (level: LogLevel, message, meta) => {
    const fields = { engine: 'graphile-worker', ...scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(fields, message);
    else if (level === 'warning') logger.warn(fields, message);
    else logger.debug(fields, message);
  });
}

/**
 * The job engine: graphile-worker on the warehouse's own PostgreSQL (schema graphile_worker,
 * created or migrated here). Every worker's schedules put jobs on one queue (queueFire), and
 * whichever worker is free takes the next one: different sources' jobs run in parallel, one
 * source's job one at a time (its serial queue).
 *
 * A run's failure is recorded by the run and ends its engine job, since the next fire tries again.
 * A run interrupted by its worker stopping hands its job back to the queue (a failed attempt),
 * so another worker resumes it from the sync state. A worker that dies holds its job until the
 * sweep below finds the job's run abandoned, or finds no run for the job long after it was taken
 * (the worker died before recording one), and unlocks the dead worker's jobs: at once after a
 * first death, after the catch-up backoff when the job's runs have died before.
 */
export async function startJobEngine(options: JobEngineOptions): Promise<JobEngine> {
  const { pool, logger } = options;
  const known = new Set(options.sources);

  const syncTask: Task = async (raw) => {
    const job = payloadSchema.parse(raw);
    if (!known.has(job.source)) {
      // Thrown, so the job is retried, and taken by a worker that has the source.
      throw new Error(`this worker has no source named ${job.source}; give every worker the same PITWALL_SOURCES`);
    }
    const summary = await options.run(job);
    if (summary.status === 'interrupted') {
      throw new Error(`run ${summary.runId} interrupted by its worker stopping; handed back to the queue`);
    }
  };

  const graphileLogger = engineLogger(logger);
  const utils: WorkerUtils = await makeWorkerUtils({ pgPool: pool, logger: graphileLogger });
  let runner: Runner;
  try {
    runner = await run({
      pgPool: pool,
      concurrency: options.concurrency,
      noHandleSignals: true,
      pollInterval: POLL_INTERVAL_MS,
      logger: graphileLogger,
      taskList: { [SYNC_TASK]: syncTask },
    });
  } catch (err) {
    await utils.release();
    throw err;
  }
  let alive = true;
  runner.promise.catch((err: unknown) => {
    alive = false;
    logger.error({ err: err instanceof Error ? err.message : String(err) }, 'job engine stopped; this worker takes no more jobs');
  });

  let sweeping = Promise.resolve();
  const sweep = async () => {
    await markDeadRuns(pool);
    const dead = await jobsOfDeadWorkers(pool, UNSTARTED_JOB_AFTER_MS);
    if (dead.length === 0) return;
    await utils.forceUnlockWorkers([...new Set(dead.map((j) => j.lockedBy))]);
    // A job whose runs keep dying (a run that kills its process) waits as a failing catch-up
    // does, so that a crash loop does not walk the upstream again every minute.
    for (const job of dead.filter((j) => j.attempts > 1)) {
      await utils.rescheduleJobs([job.id], { runAt: new Date(Date.now() + catchUpDelayMs(job.attempts - 1)) });
    }
    logger.warn(
      { jobs: dead.map((j) => ({ id: j.id, attempts: j.attempts, worker: j.lockedBy })) },
      'jobs of dead workers (their runs abandoned, or never started) handed back to the queue (at once on a first attempt, after the catch-up backoff on later ones)',
    );
  };
  const timer = setInterval(() => {
    sweeping = sweeping.then(sweep).catch((err: unknown) =>
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'sweep for dead workers\' jobs failed; next one in a moment'),
    );
  }, DEAD_JOB_SWEEP_MS);
  timer.unref();

  let stopped: Promise<void> | undefined;
  return {
    alive: () => alive && stopped === undefined,
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(timer);
        await sweeping;
        try {
          await runner.stop();
        } catch (err) {
          // Already stopped by itself, and logged when it did.
          logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'job engine stop');
        }
        await utils.release();
      })()),
  };
}
