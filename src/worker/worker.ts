import { setMaxListeners } from 'node:events';

import pLimit from 'p-limit';

import { configSecrets } from '../config.js';
import { ProcessPace } from '../coordination/pace.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { startObservabilityServer, type HealthReport, type ObservabilityServer } from '../observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../observability/metrics.js';
import { loadStatusPage } from '../observability/status-page/data.js';
import { sourceSecrets, type Source } from '../sources.js';
import { RunCounters } from '../sync/counters.js';
import { HeartbeatGroup } from '../sync/heartbeat.js';
import type { JobName } from '../sync/jobs.js';
import { runSync, type RunSummary } from '../sync/run.js';
import { recordConfiguredSources } from '../sync/sql/configured-sources.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';
import { buildSummary } from '../sync/summary.js';
import type { RunCoordination, SyncDeps } from '../sync/types.js';

import { catchingUpMessage, startCatchUp, type CatchUp } from './catch-up.js';
import { gracefulStop } from './graceful-stop.js';
import { checkHealth } from './health.js';
import { lastSuccesses } from './last-successes.js';
import { Ownership } from './ownership.js';
import { tryRunLocks } from './run-locks.js';
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
  /**
   * One run of `job` of a source (the first when not named) now, the way a cron tick starts it,
   * once a run slot is free; with a trigger other than `manual`, only while this worker owns the
   * source (else it returns `interrupted`, run id 0, having begun nothing).
   */
  runJob(job: JobName, trigger?: Trigger, source?: string): Promise<RunSummary>;
  /** Settles when the catch-ups of the sources this worker owns now have nothing left to do (at once when they are off). */
  caughtUp(): Promise<void>;
  /** The sources this worker owns now. */
  owned(): string[];
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

/** A source this worker owns: its schedules and catch-up, and its runs going or waiting here. */
interface OwnedSource {
  source: Source;
  scheduler: Scheduler;
  catchUp?: CatchUp;
}

/**
 * The long-running worker. Each source is owned by one worker at a time (src/worker/ownership.ts):
 * the owner runs the source's three jobs on their cron schedules, its catch-up when it takes the
 * source, and its pace and concurrency in memory. Runs borrow connections from the pool only to
 * load an answer or record the run; their job locks live on the ownership's lock session. The
 * pool belongs to the caller, who ends it after stop().
 */
export function createWorker(deps: Omit<SyncDeps, 'observer'>, options: WorkerOptions = {}): Worker {
  const { config, logger } = deps;
  const shutdown = gracefulStop(config.shutdownTimeoutMs);
  const running = new Set<Promise<unknown>>();
  const sources: Source[] = options.sources ? [...options.sources] : [{ name: deps.source ?? DEFAULT_SOURCE, config: deps.config as Source['config'] }];
  const owned = new Map<string, OwnedSource>();
  // Runs going here, by source: a source with a run going is never handed over to even out
  // shares; one whose runs only wait for a slot is, and they never begin here.
  const started = new Map<string, number>();
  const metrics = createMetrics(deps.pool, sources.map((s) => s.name));
  // At most PITWALL_WORKER_JOBS runs go at once in this worker, whatever the number of sources it owns.
  const runSlots = pLimit(config.workerJobs);
  let server: ObservabilityServer | undefined;
  let ownership: Ownership | undefined;
  let heartbeats: HeartbeatGroup | undefined;
  let coordination: RunCoordination | undefined;
  let stopped: Promise<void> | undefined;
  // Ends the catch-ups' waits when the worker stops.
  const stopping = new AbortController();
  // Set once the ownership has made its first look (and taken its first sources, when alone). A
  // start that failed before (its port taken, say) is reported by its error alone: the stop after
  // it speaks at debug, so a person at a terminal reads one line.
  let startedUp = false;
  setMaxListeners(sources.length + 10, stopping.signal);

  const sourceNamed = (name: string | undefined): Source => {
    const found = name === undefined ? sources[0] : sources.find((s) => s.name === name);
    if (!found) throw new Error(`the worker runs no source named ${name}`);
    return found;
  };

  /** `begins` is called as the run begins, after it had its slot and its source is still this worker's. */
  const startRun = (job: JobName, trigger: Trigger, sourceName: string | undefined, begins?: () => void): Promise<RunSummary> => {
    const source = sourceNamed(sourceName);
    const notBegun = (why: string) => Promise.resolve(buildSummary(0, job, 'interrupted', performance.now(), new RunCounters(), why));
    const run = runSlots(async () => {
      // Waited for a slot through a stop, or while the source passed to another worker (its
      // schedules and catch-up go on there): nothing to record, no run began.
      if (shutdown.drain.aborted) return notBegun('the worker stopped before the run began');
      if (trigger !== 'manual' && ownership && !ownership.owns(source.name)) return notBegun('the source passed to another worker before the run began');
      started.set(source.name, (started.get(source.name) ?? 0) + 1);
      begins?.();
      try {
        return await runSync(
          { ...deps, config: source.config, source: source.name, observer: metrics.observer, ...(coordination ? { coordination } : {}) },
          { job, trigger, drain: shutdown.drain, signal: shutdown.abort },
        );
      } finally {
        started.set(source.name, (started.get(source.name) ?? 1) - 1);
      }
    });
    running.add(run);
    const settle = () => running.delete(run);
    void run.then(settle, settle);
    return run;
  };
  const runJob = (job: JobName, trigger: Trigger = 'cron', sourceName?: string): Promise<RunSummary> => startRun(job, trigger, sourceName);

  // A source's lines carry its name, but for the one unnamed source of a single-source worker.
  const loggerOf = (source: string) => (source === DEFAULT_SOURCE ? logger : logger.child({ source }));

  const runCatchUp = (job: JobName, fire: string, sourceName: string): Promise<RunSummary> =>
    startRun(job, 'catch-up', sourceName, () => loggerOf(sourceName).info({ job, fire }, catchingUpMessage(job, fire)));

  // A run records its own failure; an exception here means the database failed before the run
  // could even be recorded. Logged, and the next tick tries again.
  const scheduledRun = (own: OwnedSource, job: JobName): Promise<unknown> => {
    const source = own.source.name;
    if (job !== 'full' && own.catchUp?.fullRunning()) {
      logger.info({ source, job }, 'tick left to the full catch-up running now, which loads this job\'s data too');
      return Promise.resolve();
    }
    return runJob(job, 'cron', source).catch((err: unknown) =>
      logger.error({ source, job, err: err instanceof Error ? err.message : String(err) }, 'job could not run'),
    );
  };

  const scheduleOf = (source: Source): ScheduledJob[] => [
    { job: 'live', cron: source.config.cronLive },
    { job: 'season', cron: source.config.cronSeason },
    { job: 'full', cron: source.config.cronFull },
  ];

  // Taken at start, from a worker that died, or handed over to even out shares: the source's dead
  // runs are closed first (once for all the sources taken in one beat), then its schedules and
  // its catch-up start here.
  const gained = (names: readonly string[]): Promise<void> =>
    markDeadRuns(deps.pool).then(
      (abandoned) => {
        if (abandoned.length > 0) logger.info({ abandoned }, 'runs left running by dead processes marked abandoned');
      },
      (err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not check for dead runs'),
    ).then(() => {
      for (const name of names) {
        if (stopped || ownership?.owns(name) !== true || owned.has(name)) continue;
        const source = sourceNamed(name);
        const jobs = scheduleOf(source);
        const own: OwnedSource = {
          source,
          scheduler: startScheduler({ jobs, timezone: config.timezone, run: (job) => scheduledRun(own, job), logger: loggerOf(name) }),
        };
        if (config.catchUp === 'on') {
          own.catchUp = startCatchUp({ pool: deps.pool, source: name, logger: loggerOf(name), jobs, timezone: config.timezone, run: (job, fire) => runCatchUp(job, fire, name) });
        }
        owned.set(name, own);
        metrics.setOwned(name, true);
      }
    });

  const lost = (name: string) => {
    const own = owned.get(name);
    owned.delete(name);
    metrics.setOwned(name, false);
    own?.scheduler.stop();
    own?.catchUp?.stop();
  };

  // The first owned source's schedules stand for the worker's in its health report; the status
  // page shows each source's. A worker that owns nothing (the others own every source) is healthy.
  const schedule = {
    // While it starts (the endpoint listens first, so a port taken is said at once) it counts as alive.
    alive: () => !startedUp || [...owned.values()].every((o) => o.scheduler.alive()),
    nextRuns: () => [...owned.values()][0]?.scheduler.nextRuns() ?? {},
  };
  const health = () => checkHealth({ pool: deps.pool, scheduler: schedule, stopping: stopped !== undefined });

  const start = async () => {
    await recordConfiguredSources(deps.pool, sources.map((s) => s.name));
    for (const { source, job, at } of await lastSuccesses(deps.pool)) metrics.setLastSuccess(job, at, source);
    if (config.httpPort !== undefined) {
      // Every source's key, not only the first's: error texts on the page are redacted with them.
      const secrets = [...configSecrets(config), ...sourceSecrets(sources)];
      server = await startObservabilityServer({
        port: config.httpPort,
        host: config.httpHost,
        health,
        registry: metrics.registry,
        logger,
        status: () =>
          loadStatusPage(deps.pool, {
            secrets,
            sources: () => sources.map((source) => ({ name: source.name, nextRuns: owned.get(source.name)?.scheduler.nextRuns() ?? {}, shapes: source.config.shapes ?? null })),
          }),
        ...(config.httpToken !== undefined ? { token: config.httpToken } : {}),
      });
      logger.info({ listening: server.bound, url: server.url, token: config.httpToken !== undefined }, 'health, metrics and status page endpoint listening');
    }
    // The pace reads this worker's shares as the ownership's last beat left them.
    const pace = new ProcessPace({ sourceShare: (source) => ownership?.shares.sourceShare(source) ?? 1, globalShare: () => ownership?.shares.globalShare() ?? 1 });
    const hold = (source: string, ms: number) => pace.hold(source, ms);
    ownership = new Ownership({ pool: deps.pool, sources: sources.map((s) => s.name), logger, gained, lost, hold, busy: (s) => (started.get(s) ?? 0) > 0 });
    heartbeats = new HeartbeatGroup(deps.pool, logger, ownership.beatMs);
    const session = () => ownership!.lockSession();
    coordination = { tryJobLocks: (source, jobs, job) => tryRunLocks(session(), source, jobs, job), startHeartbeat: heartbeats.start, pace };
    await ownership.start();
    startedUp = true;
    logger.info({ sources: sources.map((s) => s.name), owned: ownership.owned().length, jobsAtOnce: config.workerJobs }, 'worker started');
  };

  const stop = () =>
    (stopped ??= (async () => {
      for (const name of [...owned.keys()]) lost(name);
      const say = startedUp ? logger.info.bind(logger) : logger.debug.bind(logger);
      say({ runs: running.size, timeoutMs: config.shutdownTimeoutMs }, 'worker stopping; draining runs');
      stopping.abort();
      shutdown.begin(new Error('worker stopping'));
      // Every run started here has recorded its outcome; then the sources are freed for the
      // other workers, whose next beat takes them.
      await Promise.allSettled([...running]);
      await heartbeats?.stop();
      await ownership?.stop();
      shutdown.dispose();
      await server?.close();
      say('worker stopped');
    })());

  return {
    start,
    runJob,
    caughtUp: async () => void (await Promise.all([...owned.values()].map((o) => o.catchUp?.done))),
    owned: () => ownership?.owned() ?? [],
    stop,
    health,
    metrics,
    get url() {
      return server?.url;
    },
  };
}
