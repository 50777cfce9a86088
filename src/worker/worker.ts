import { configSecrets } from '../config.js';
import { ProcessPace } from '../coordination/pace.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { startObservabilityServer, type HealthReport, type ObservabilityServer } from '../observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../observability/metrics.js';
import { loadStatusPage } from '../observability/status-page/data.js';
import { sourceSecrets, type Source } from '../sources.js';
import { HeartbeatGroup } from '../sync/heartbeat.js';
import type { JobName } from '../sync/jobs.js';
import { runSync, type RunSummary } from '../sync/run.js';
import { recordConfiguredSources } from '../sync/sql/configured-sources.js';
import { tryRunLocks } from '../sync/sql/job-lock.js';
import type { RunCoordination, SyncDeps } from '../sync/types.js';

import { gracefulStop } from './graceful-stop.js';
import { checkHealth } from './health.js';
import { lastSuccesses } from './last-successes.js';
import { OwnedSources } from './owned-sources.js';
import { Ownership } from './ownership.js';
import { RUNS_GRACE_MS, WorkerRuns } from './worker-runs.js';

type Trigger = 'cron' | 'manual' | 'catch-up';

/** How often a running run's progress is logged (at the beat that comes after). */
export const PROGRESS_LOG_MS = 30_000;

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
   * the endpoint. Resolves when every run has recorded its outcome, or RUNS_GRACE_MS past the
   * timeout when the database does not answer (STOP_GRACE_MS bounds the whole stop). Safe to call twice.
   */
  stop(): Promise<void>;
  health(): Promise<HealthReport>;
  readonly metrics: WorkerMetrics;
  /** The health/metrics endpoint's URL once started, when PITWALL_HTTP_PORT is set. */
  readonly url: string | undefined;
}

/**
 * The long-running worker. Each source is owned by one worker at a time (src/worker/ownership.ts):
 * the owner runs the source's three jobs on their cron schedules, its catch-up when it takes the
 * source (src/worker/owned-sources.ts), and its pace and concurrency in memory. Runs borrow
 * connections from the pool only to load an answer or record the run; their job locks live on the
 * ownership's lock session, and their heartbeats are written by its beat. The pool belongs to the
 * caller, who ends it after stop().
 */
export function createWorker(deps: Omit<SyncDeps, 'observer'>, options: WorkerOptions = {}): Worker {
  const { config, logger } = deps;
  const shutdown = gracefulStop(config.shutdownTimeoutMs);
  const sources: Source[] = options.sources ? [...options.sources] : [{ name: deps.source ?? DEFAULT_SOURCE, config: deps.config as Source['config'] }];
  const metrics = createMetrics(deps.pool, sources.map((s) => s.name));
  const runs = new WorkerRuns(config.workerJobs);
  // A long run says how far it has come in the log, as `pitwall sync` does in a terminal.
  const heartbeats = new HeartbeatGroup(logger, { progressEveryMs: PROGRESS_LOG_MS });
  let server: ObservabilityServer | undefined;
  let stopped: Promise<void> | undefined;
  // Set once the ownership has made its first look. A start that failed before (its port taken,
  // say) is reported by its error alone: the stop after it speaks at debug, so a person at a
  // terminal reads one line.
  let startedUp = false;
  // Set before the ownership takes its first sources: every run from then on (the first
  // catch-ups begin while start() still awaits) holds its job lock on the worker's lock session,
  // so it stops with that session, and runs only while its source is this worker's.
  let owning = false;

  const sourceNamed = (name: string | undefined): Source => {
    const found = name === undefined ? sources[0] : sources.find((s) => s.name === name);
    if (!found) throw new Error(`the worker runs no source named ${name}`);
    return found;
  };

  /** `begins` is called as the run begins, after it had its slot and its source is still this worker's. */
  const startRun = (job: JobName, trigger: Trigger, sourceName: string | undefined, begins?: () => void): Promise<RunSummary> => {
    const source = sourceNamed(sourceName);
    // Waited for a slot through a stop, or while the source passed to another worker (its
    // schedules and catch-up go on there): nothing to record, no run began.
    const refuse = () => {
      if (shutdown.drain.aborted) return 'the worker stopped before the run began';
      if (owning && trigger !== 'manual' && !ownership.owns(source.name)) return 'the source passed to another worker before the run began';
      return undefined;
    };
    return runs.add(source.name, job, refuse, metrics.observer, (observer) => {
      begins?.();
      // Before start() (a test's, a one-off's), a run takes its own lock session, as `pitwall sync` does.
      const shared = owning ? { coordination } : {};
      return runSync({ ...deps, config: source.config, source: source.name, observer, ...shared }, { job, trigger, drain: shutdown.drain, signal: shutdown.abort });
    });
  };

  const owned = new OwnedSources({
    pool: deps.pool,
    config,
    logger,
    startRun,
    keeps: (name) => stopped === undefined && ownership.owns(name),
    going: (id) => runs.going(id),
    owned: (name, is) => metrics.setOwned(name, is),
  });
  // The pace reads this worker's shares as the ownership's last beat left them.
  const pace = new ProcessPace({ sourceShare: (source) => ownership.shares.sourceShare(source), globalShare: () => ownership.shares.globalShare() });
  const ownership: Ownership = new Ownership({
    pool: deps.pool,
    sources: sources.map((s) => s.name),
    logger,
    gained: (names) => owned.gain(names.map(sourceNamed)),
    lost: (name) => owned.lose(name),
    hold: (source, ms) => pace.hold(source, ms),
    busy: (source) => runs.busy(source),
    heartbeats,
    lockDatabaseUrl: config.lockDatabaseUrl,
  });
  const coordination: RunCoordination = {
    tryJobLocks: (source, jobs, job) => tryRunLocks(ownership.lockSession(), source, jobs, job),
    startHeartbeat: (run) => heartbeats.start(run),
    pace,
  };

  // The first owned source's schedules stand for the worker's in its health report; the status
  // page shows each source's. A worker that owns nothing (the others own every source) is healthy,
  // as long as it holds its lock session.
  const schedule = {
    // While it starts (the endpoint listens first, so a port taken is said at once) it counts as alive.
    alive: () => !startedUp || owned.alive(),
    nextRuns: () => owned.nextRuns(),
  };
  const health = () =>
    checkHealth({ pool: deps.pool, scheduler: schedule, stopping: stopped !== undefined, ...(startedUp ? { session: () => ownership.holdsSession() } : {}) });

  const startEndpoint = async () => {
    if (config.httpPort === undefined) return;
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
          ...(startedUp ? { lockSession: () => ownership.holdsSession() } : {}),
          sources: () => sources.map((source) => ({ name: source.name, nextRuns: owned.nextRuns(source.name), shapes: source.config.shapes ?? null })),
        }),
      ...(config.httpToken !== undefined ? { token: config.httpToken } : {}),
    });
    logger.info({ listening: server.bound, url: server.url, token: config.httpToken !== undefined }, 'health, metrics and status page endpoint listening');
  };

  const start = async () => {
    await recordConfiguredSources(deps.pool, sources.map((s) => s.name));
    for (const { source, job, at } of await lastSuccesses(deps.pool)) metrics.setLastSuccess(job, at, source);
    await startEndpoint();
    owning = true;
    await ownership.start();
    startedUp = true;
    logger.info({ sources: sources.map((s) => s.name), owned: ownership.owned().length, jobsAtOnce: config.workerJobs }, 'worker started');
  };

  const stop = () =>
    (stopped ??= (async () => {
      for (const name of owned.names()) owned.lose(name);
      const say = startedUp ? logger.info.bind(logger) : logger.debug.bind(logger);
      say({ runs: runs.size, timeoutMs: config.shutdownTimeoutMs }, 'worker stopping; draining runs');
      shutdown.begin(new Error('worker stopping'));
      // Every run started here records its outcome (or the bound passes: the database does not
      // answer); then the sources are freed for the other workers, whose next beat takes them.
      await runs.drain(config.shutdownTimeoutMs + RUNS_GRACE_MS, logger);
      await ownership.stop();
      shutdown.dispose();
      await server?.close();
      say('worker stopped');
    })());

  return {
    start,
    runJob: (job, trigger = 'cron', sourceName) => startRun(job, trigger, sourceName),
    caughtUp: () => owned.caughtUp(),
    owned: () => ownership.owned(),
    stop,
    health,
    metrics,
    get url() {
      return server?.url;
    },
  };
}
