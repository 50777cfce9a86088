import { setMaxListeners } from 'node:events';

import { configSecrets } from '../config.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { startObservabilityServer, type HealthReport, type ObservabilityServer } from '../observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../observability/metrics.js';
import { loadStatusPage } from '../observability/status-page/data.js';
import { sourceSecrets, type Source } from '../sources.js';
import type { JobName } from '../sync/jobs.js';
import { runSync, type RunSummary } from '../sync/run.js';
import { recordConfiguredSources } from '../sync/sql/configured-sources.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';
import type { SyncDeps } from '../sync/types.js';

import { catchingUpMessage, startCatchUp, type CatchUp } from './catch-up.js';
import { gracefulStop } from './graceful-stop.js';
import { checkHealth } from './health.js';
import { lastSuccesses } from './last-successes.js';
import { startJobEngine, type JobEngine } from './queue/engine.js';
import { catchUpThroughQueue, queueCronFire } from './queue/fires.js';
import { startScheduler, type ScheduledJob, type Scheduler } from './scheduler.js';

type Trigger = 'cron' | 'manual' | 'catch-up';

export interface WorkerOptions {
  /**
   * The sources whose jobs the worker runs (PITWALL_SOURCES), each on its own schedules and at
   * its own key's pace; one source, deps' own (`deps.source` with `deps.config`), when omitted.
   */
  sources?: readonly Source[];
}

export interface Worker {
  /**
   * Records its sources as the configured ones (pitwall.sources), marks dead runs abandoned,
   * starts the health/metrics endpoint (when configured), the schedule and, with
   * PITWALL_CATCH_UP on, the catch-up of jobs that are behind it (not awaited).
   */
  start(): Promise<void>;
  /** One run of `job` of a source (the first when not named) now, the way a cron tick starts it. */
  runJob(job: JobName, trigger?: Trigger, source?: string): Promise<RunSummary>;
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

/** A source's schedules and catch-up, as the worker runs them. */
interface SourceJobs {
  source: Source;
  scheduler?: Scheduler;
  catchUp?: CatchUp;
}

/**
 * The long-running worker: each source's three jobs on their cron schedules against one pool.
 * With PITWALL_JOB_QUEUE=postgres (the default) a schedule's fire puts a job on the job queue
 * (src/worker/queue/engine.ts) and the job runs on whichever worker takes it; with `local` the
 * fire runs the job here. The pool belongs to the caller, who ends it after stop().
 */
export function createWorker(deps: Omit<SyncDeps, 'observer'>, options: WorkerOptions = {}): Worker {
  const { config, logger } = deps;
  const shutdown = gracefulStop(config.shutdownTimeoutMs);
  const running = new Set<Promise<unknown>>();
  const sources: SourceJobs[] = (options.sources ?? [{ name: deps.source ?? DEFAULT_SOURCE, config: deps.config as Source['config'] }]).map((source) => ({ source }));
  const metrics = createMetrics(deps.pool, sources.map((s) => s.source.name));
  let server: ObservabilityServer | undefined;
  let engine: JobEngine | undefined;
  let stopped: Promise<void> | undefined;
  // Ends the waits of queued catch-ups when the worker stops: one wait per source at a time.
  const stopping = new AbortController();
  // A start that failed (its port taken, say) is reported by its error alone: the stop after it
  // speaks at debug, so a person at a terminal reads one line.
  let startedUp = false;
  setMaxListeners(sources.length + 10, stopping.signal);

  const jobsOf = (name: string | undefined): SourceJobs => {
    const found = name === undefined ? sources[0] : sources.find((s) => s.source.name === name);
    if (!found) throw new Error(`the worker runs no source named ${name}`);
    return found;
  };

  const runJob = (job: JobName, trigger: Trigger = 'cron', sourceName?: string): Promise<RunSummary> => {
    const { source } = jobsOf(sourceName);
    const run = runSync(
      { ...deps, config: source.config, source: source.name, observer: metrics.observer },
      { job, trigger, drain: shutdown.drain, signal: shutdown.abort },
    );
    running.add(run);
    void run.then(
      () => running.delete(run),
      () => running.delete(run),
    );
    return run;
  };

  // A source's lines carry its name, but for the one unnamed source of a single-source worker.
  const loggerOf = (source: string) => (source === DEFAULT_SOURCE ? logger : logger.child({ source }));

  // Said by the worker that runs it: with the job queue, only one of the workers that decided it.
  const runCatchUp = (job: JobName, fire: string, sourceName: string): Promise<RunSummary> => {
    loggerOf(sourceName).info({ job, fire }, catchingUpMessage(job, fire));
    return runJob(job, 'catch-up', sourceName);
  };

  // A run records its own failure; an exception here means the database failed before the run
  // could even be recorded (or the job queued). Logged, and the next tick tries again.
  const scheduledRun = (jobs: SourceJobs, job: JobName, firedAt: Date): Promise<unknown> => {
    const source = jobs.source.name;
    if (job !== 'full' && jobs.catchUp?.fullRunning()) {
      logger.info({ source, job }, 'tick left to the full catch-up running now, which loads this job\'s data too');
      return Promise.resolve();
    }
    const started = engine
      ? queueCronFire(deps.pool, source, job, firedAt).then((id) =>
          logger.debug({ source, job, firedAt, queued: id ?? 'by another worker' }, 'schedule fired'),
        )
      : runJob(job, 'cron', source);
    return started.catch((err: unknown) =>
      logger.error({ source, job, err: err instanceof Error ? err.message : String(err) }, 'job could not run'),
    );
  };

  // The first source's schedules stand for the worker's in its health report (every source's are
  // started and stopped together); the status page shows each source's.
  const health = () => checkHealth({ pool: deps.pool, scheduler: sources[0]?.scheduler, queue: engine, stopping: stopped !== undefined });

  const start = async () => {
    await recordConfiguredSources(deps.pool, sources.map((s) => s.source.name));
    const abandoned = await markDeadRuns(deps.pool);
    if (abandoned.length > 0) logger.info({ abandoned }, 'runs left running by dead processes marked abandoned');
    for (const { source, job, at } of await lastSuccesses(deps.pool)) metrics.setLastSuccess(job, at, source);
    if (config.httpPort !== undefined) {
      // Every source's key, not only the first's: error texts on the page are redacted with them.
      const secrets = [...configSecrets(config), ...sourceSecrets(sources.map((s) => s.source))];
      server = await startObservabilityServer({
        port: config.httpPort,
        host: config.httpHost,
        health,
        registry: metrics.registry,
        logger,
        status: () =>
          loadStatusPage(deps.pool, {
            secrets,
            sources: () => sources.map(({ source, scheduler }) => ({ name: source.name, nextRuns: scheduler?.nextRuns() ?? {}, shapes: source.config.shapes ?? null })),
          }),
        ...(config.httpToken !== undefined ? { token: config.httpToken } : {}),
      });
      logger.info({ listening: server.bound, url: server.url, token: config.httpToken !== undefined }, 'health, metrics and status page endpoint listening');
    }
    if (config.jobQueue === 'postgres') {
      engine = await startJobEngine({
        pool: deps.pool,
        logger,
        concurrency: config.workerJobs,
        sources: sources.map((s) => s.source.name),
        run: (queued) => (queued.trigger === 'catch-up' ? runCatchUp(queued.job, queued.fire, queued.source) : runJob(queued.job, queued.trigger, queued.source)),
      });
    }
    for (const jobs of sources) {
      const { name, config: own } = jobs.source;
      const scheduled: ScheduledJob[] = [
        { job: 'live', cron: own.cronLive },
        { job: 'season', cron: own.cronSeason },
        { job: 'full', cron: own.cronFull },
      ];
      const sourceLogger = loggerOf(name);
      jobs.scheduler = startScheduler({ jobs: scheduled, timezone: config.timezone, run: (job, firedAt) => scheduledRun(jobs, job, firedAt), logger: sourceLogger });
      if (config.catchUp === 'on') {
        jobs.catchUp = startCatchUp({
          pool: deps.pool,
          source: name,
          logger: sourceLogger,
          jobs: scheduled,
          timezone: config.timezone,
          run: (job, fire) => (engine ? catchUpThroughQueue(deps.pool, name, job, fire, stopping.signal) : runCatchUp(job, fire, name)),
        });
      }
    }
    logger.info({ sources: sources.map((s) => s.source.name), jobQueue: config.jobQueue, jobsAtOnce: engine ? config.workerJobs : undefined }, 'worker started');
    startedUp = true;
  };

  const stop = () =>
    (stopped ??= (async () => {
      for (const jobs of sources) {
        jobs.scheduler?.stop();
        jobs.catchUp?.stop();
      }
      const say = startedUp ? logger.info.bind(logger) : logger.debug.bind(logger);
      say({ runs: running.size, timeoutMs: config.shutdownTimeoutMs }, 'worker stopping; draining runs');
      stopping.abort();
      shutdown.begin(new Error('worker stopping'));
      // The queue takes no new job and waits for its running ones, which the drain ends; a run it
      // ends this way hands its job back to the queue for another worker. Then every run started
      // here (by the queue or by runJob) has recorded its outcome.
      await engine?.stop();
      await Promise.allSettled([...running]);
      await Promise.all(sources.map((jobs) => jobs.catchUp?.done));
      shutdown.dispose();
      await server?.close();
      say('worker stopped');
    })());

  return {
    start,
    runJob,
    caughtUp: async () => void (await Promise.all(sources.map((jobs) => jobs.catchUp?.done))),
    stop,
    health,
    metrics,
    get url() {
      return server?.url;
    },
  };
}
