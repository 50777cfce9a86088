import { configSecrets } from '../config.js';
import { startObservabilityServer, type HealthReport, type ObservabilityServer } from '../observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../observability/metrics.js';
import { loadStatusPage } from '../observability/status-page/data.js';
import type { JobName } from '../sync/jobs.js';
import { runSync, type RunSummary, type SyncDeps } from '../sync/run.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { gracefulStop } from './graceful-stop.js';
import { checkHealth } from './health.js';
import { lastSuccesses } from './last-successes.js';
import { startScheduler, type Scheduler } from './scheduler.js';

export interface WorkerOptions {
  /** Listen address of the health/metrics endpoint; all interfaces when omitted. */
  httpHost?: string;
}

export interface Worker {
  /** Marks dead runs abandoned, starts the health/metrics endpoint (when configured) and the schedule. */
  start(): Promise<void>;
  /** One run of `job` now, the way a cron tick starts it. */
  runJob(job: JobName, trigger?: 'cron' | 'manual'): Promise<RunSummary>;
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
  const metrics = createMetrics();
  const shutdown = gracefulStop(config.shutdownTimeoutMs);
  const running = new Set<Promise<unknown>>();
  let scheduler: Scheduler | undefined;
  let server: ObservabilityServer | undefined;
  let stopped: Promise<void> | undefined;

  const runJob = (job: JobName, trigger: 'cron' | 'manual' = 'cron'): Promise<RunSummary> => {
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

  const health = () => checkHealth({ pool: deps.pool, scheduler, stopping: stopped !== undefined });

  const start = async () => {
    const abandoned = await markDeadRuns(deps.pool);
    logger.info({ abandoned }, 'runs left running by dead processes marked abandoned');
    for (const [job, at] of Object.entries(await lastSuccesses(deps.pool))) metrics.setLastSuccess(job as JobName, at);
    if (config.httpPort !== undefined) {
      const secrets = configSecrets(config);
      server = await startObservabilityServer({
        port: config.httpPort,
        ...(options.httpHost !== undefined ? { host: options.httpHost } : {}),
        health,
        registry: metrics.registry,
        logger,
        status: () => loadStatusPage(deps.pool, { secrets }),
        ...(config.httpToken !== undefined ? { token: config.httpToken } : {}),
      });
      logger.info({ url: server.url, token: config.httpToken !== undefined }, 'health, metrics and status page endpoint listening');
    }
    scheduler = startScheduler({
      jobs: [
        { job: 'live', cron: config.cronLive },
        { job: 'season', cron: config.cronSeason },
        { job: 'full', cron: config.cronFull },
      ],
      timezone: config.timezone,
      // A run records its own failure; an exception here means the database failed before the
      // run could even be recorded. Logged, and the next tick tries again.
      run: (job) =>
        runJob(job).catch((err: unknown) =>
          logger.error({ job, err: err instanceof Error ? err.message : String(err) }, 'job could not run'),
        ),
      logger,
    });
    logger.info('worker started');
  };

  const stop = () =>
    (stopped ??= (async () => {
      scheduler?.stop();
      logger.info({ runs: running.size, timeoutMs: config.shutdownTimeoutMs }, 'worker stopping; draining runs');
      shutdown.begin(new Error('worker stopping'));
      await Promise.allSettled([...running]);
      shutdown.dispose();
      await server?.close();
      logger.info('worker stopped');
    })());

  return {
    start,
    runJob,
    stop,
    health,
    metrics,
    get url() {
      return server?.url;
    },
  };
}
