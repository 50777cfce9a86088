import { createTask, type Logger as CronLogger, type ScheduledTask } from 'node-cron';

import type { Logger } from '../log.js';
import type { JobName } from '../sync/jobs.js';

export interface ScheduledJob {
  job: JobName;
  /** A node-cron expression: five fields (minute first) or six (seconds first). */
  cron: string;
}

export interface SchedulerOptions {
  jobs: readonly ScheduledJob[];
  /** IANA zone the expressions are read in. */
  timezone: string;
  /**
   * Runs (or queues) one job for the fire scheduled at `firedAt`, which every process firing the
   * same schedule agrees on. While its promise is pending the job is not fired again (node-cron's
   * noOverlap).
   */
  run: (job: JobName, firedAt: Date) => Promise<unknown>;
  logger: Logger;
}

export interface Scheduler {
  /** True while every job is scheduled. */
  alive(): boolean;
  /** When each job fires next (ISO), null once stopped. */
  nextRuns(): Partial<Record<JobName, string | null>>;
  /** Stops scheduling; runs in progress are left alone. Safe to call twice. */
  stop(): void;
}

/**
 * node-cron's own messages into our logger, not the console. Its warnings are the ones worth
 * seeing: a tick blocked because the previous run is still going, a tick missed by a busy loop.
 */
function cronLogger(logger: Logger): CronLogger {
  const text = (m: string | Error) => (m instanceof Error ? m.message : m);
  return {
    info: (m) => logger.debug(m),
    debug: (m) => logger.debug(text(m)),
    warn: (m) => logger.warn(m),
    error: (m, err) => logger.error({ err: err?.message }, text(m)),
  };
}

/**
 * One node-cron task per job. Overlap is prevented twice: here within the process (noOverlap),
 * and by the job's advisory lock across processes (runSync records a `skipped` run).
 */
export function startScheduler(options: SchedulerOptions): Scheduler {
  const tasks = new Map<JobName, ScheduledTask>();
  let stopped = false;
  for (const { job, cron } of options.jobs) {
    const logger = options.logger.child({ job });
    const task = createTask(cron, (ctx) => options.run(job, ctx.date), {
      name: `pitwall-${job}`,
      timezone: options.timezone,
      noOverlap: true,
      logger: cronLogger(logger),
    });
    void task.start();
    tasks.set(job, task);
    logger.info({ cron, timezone: options.timezone, next: task.getNextRun()?.toISOString() }, 'job scheduled');
  }
  return {
    alive: () => !stopped && [...tasks.values()].every((t) => t.getStatus() === 'idle' || t.getStatus() === 'running'),
    nextRuns: () => Object.fromEntries([...tasks].map(([job, t]) => [job, stopped ? null : (t.getNextRun()?.toISOString() ?? null)])),
    stop: () => {
      if (stopped) return;
      stopped = true;
      for (const task of tasks.values()) void task.destroy();
    },
  };
}
