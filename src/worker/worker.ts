import { configSecrets } from '../config.js';
import { startObservabilityServer, type HealthReport, type ObservabilityServer } from '../observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../observability/metrics.js';
import { loadStatusPage } from '../observability/status-page/data.js';
import type { JobName } from '../sync/jobs.js';
import { runSync, type RunSummary, type SyncDeps } from '../sync/run.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { startCatchUp, type CatchUp } from './catch-up.js';
import { gracefulStop } from './graceful-stop.js';
import { checkHealth } from './health.js';
import { lastSuccesses } from './last-successes.js';
import { startScheduler, type ScheduledJob, type Scheduler } from './scheduler.js';

type Trigger = 'cron' | 'manual' | 'catch-up';

export interface WorkerOptions {
  /** Listen address of the health/metrics endpoint; all interfaces when omitted. */
  httpHost?: string;
}

export interface Worker {
  /**
   * Marks dead runs abandoned, starts the health/metrics endpoint (when configured), the schedule
   * and, with PITWALL_CATCH_UP on, the catch-up of jobs that are behind it (not awaited).
   */
  start(): Promise<void>;
  /** One run of `job` now, the way a cron tick starts it. */
  runJob(job: JobName, trigger?: Trigger): Promise<RunSummary>;
  /** Settles when the start-up catch-up has nothing left to do (at once when it is off). */
  caughtUp(): Promise<void>;
  /**
   * Stops scheduling, drains running jobs (nothing new starts; in-flight requests and
   * transactions finish), cancels whatever is left after PITWALL_SHUTDOWN_TIMEOUT_MS, and closes
   * the endpoint. Resolves when every run has recorded its outcome. Safe to call twice.
   */
  stop(): Promise<void>;
  health(): Promise<HealthReport>;
  readonly metrics: WorkerMetrics;
  /** The health/metrics endpoint's URL once started, when PITWALL_HTTP_PORT is set. */
  readonly url: string | undefined;
}

/**
 * The long-running worker: three jobs on their cron schedules against one pool. The pool
 * belongs to the caller, who ends it after stop().
 */
export function createWorker(deps: Omit<SyncDeps, 'observer'>, options: WorkerOptions = {}): Worker {
  const { config, logger } = deps;
  const metrics = createMetrics(deps.pool);
  const shutdown = gracefulStop(config.shutdownTimeoutMs);
  const running = new Set<Promise<unknown>>();
  let scheduler: Scheduler | undefined;
  let catchUp: CatchUp | undefined;
  let server: ObservabilityServer | undefined;
  let stopped: Promise<void> | undefined;

  const runJob = (job: JobName, trigger: Trigger = 'cron'): Promise<RunSummary> => {
    const run = runSync(
      { ...deps, observer: metrics.observer },
      { job, trigger, drain: shutdown.drain, signal: shutdown.abort },
    );
    running.add(run);
    void run.then(
      () => running.delete(run),
      () => running.delete(run),
    );
    return run;
  };

  // A run records its own failure; an exception here means the database failed before the run
  // could even be recorded. Logged, and the next tick tries again.
  const scheduledRun = (job: JobName) => {
    if (job !== 'full' && catchUp?.fullRunning()) {
      logger.info({ job }, 'tick left to the full catch-up running now, which loads this job\'s data too');
      return Promise.resolve();
    }
    return runJob(job).catch((err: unknown) =>
      logger.error({ job, err: err instanceof Error ? err.message : String(err) }, 'job could not run'),
    );
  };

  const health = () => checkHealth({ pool: deps.pool, scheduler, stopping: stopped !== undefined });

  const start = async () => {
    const abandoned = await markDeadRuns(deps.pool);
    if (abandoned.length > 0) logger.info({ abandoned }, 'runs left running by dead processes marked abandoned');
    for (const [job, at] of Object.entries(await lastSuccesses(deps.pool))) metrics.setLastSuccess(job as JobName, at);
    if (config.httpPort !== undefined) {
      const secrets = configSecrets(config);
      server = await startObservabilityServer({
        port: config.httpPort,
        ...(options.httpHost !== undefined ? { host: options.httpHost } : {}),
        health,
        registry: metrics.registry,
        logger,
        status: () => loadStatusPage(deps.pool, { secrets, nextRuns: () => scheduler?.nextRuns() ?? {}, shapes: deps.config.shapes ?? null }),
        ...(config.httpToken !== undefined ? { token: config.httpToken } : {}),
      });
      logger.info({ url: server.url, token: config.httpToken !== undefined }, 'health, metrics and status page endpoint listening');
    }
    const jobs: ScheduledJob[] = [
      { job: 'live', cron: config.cronLive },
      { job: 'season', cron: config.cronSeason },
      { job: 'full', cron: config.cronFull },
    ];
    scheduler = startScheduler({ jobs, timezone: config.timezone, run: scheduledRun, logger });
    if (config.catchUp === 'on') {
      catchUp = startCatchUp({ pool: deps.pool, logger, jobs, timezone: config.timezone, run: (job) => runJob(job, 'catch-up') });
    }
    logger.info('worker started');
  };

  const stop = () =>
    (stopped ??= (async () => {
      scheduler?.stop();
      catchUp?.stop();
      logger.info({ runs: running.size, timeoutMs: config.shutdownTimeoutMs }, 'worker stopping; draining runs');
      shutdown.begin(new Error('worker stopping'));
      await Promise.allSettled([...running]);
      await catchUp?.done;
      shutdown.dispose();
      await server?.close();
      logger.info('worker stopped');
    })());

  return {
    start,
    runJob,
    caughtUp: async () => catchUp?.done,
    stop,
    health,
    metrics,
    get url() {
      return server?.url;
    },
  };
}
