import type pg from 'pg';

import { ApiError, PayloadError, UpstreamDownError } from '../api/errors.js';
import { canonicalQuery } from '../api/query.js';
import type { Config } from '../config.js';
import { DatabaseError } from '../db/errors.js';
import type { Logger } from '../log.js';

import { RunCounters } from './counters.js';
import { DimensionCache } from './dimension-cache.js';
import type { Endpoint, Params } from './endpoints.js';
import type { Seed } from './extract/types.js';
import { startHeartbeat } from './heartbeat.js';
import { jobPhases, type JobName, type JobPhase } from './jobs.js';
import { isRefusalStatus, KEY_REFUSED_MESSAGE, KeyRefusalWatch } from './key-refusal.js';
import type { SyncObserver } from './observer.js';
import { EnvelopeError, knownBodyTest, processResponse, recordUnchanged, type ProcessContext } from './process-response.js';
import { createRunClient } from './run-client.js';
import { isScopeDataError } from './scope-data-error.js';
import { loadDrift } from './shape/load.js';
import { driftCounts } from './shape/report.js';
import { ShapeTracker } from './shape/tracker.js';
import { tryJobLock, type JobLock } from './sql/job-lock.js';
import { insertBodyReject } from './sql/rejects.js';
import { finishRun, insertRun, markAbandoned, type RunStatus } from './sql/sync-runs.js';
import { loadResponseHashes, recordScopeFailure, ScopeTouches } from './sql/sync-state.js';
import { buildSummary, type RunSummary } from './summary.js';
import { walk, type WalkPlan } from './walk.js';

export type { RunSummary } from './summary.js';

export interface SyncDeps {
  pool: pg.Pool;
  config: Config & { apiKey: string };
  logger: Logger;
  /** Injected by tests that need to watch or break the transport; the real fetch otherwise. */
  fetch?: typeof fetch;
  /** The clock jobs read "today" and "the current year" from; the wall clock otherwise. */
  now?: () => Date;
  /** Metrics hooks (the worker's); the run works the same without them. */
  observer?: SyncObserver;
  /** Milliseconds between the run's progress writes to its sync_runs row; HEARTBEAT_INTERVAL_MS otherwise. */
  heartbeatMs?: number;
}

export interface SyncOptions {
  job?: JobName;
  trigger?: 'manual' | 'cron' | 'catch-up';
  /**
   * Drain: aborting stops the run starting requests (retries and rate-limit waits included) and
   * visits, lets the ones in flight finish and commit, and ends the run `interrupted`.
   */
  drain?: AbortSignal;
  /** Abort: like drain, and also cancels in-flight requests at once. */
  signal?: AbortSignal;
  /** Replaces the job's own plan (tests, and jobs that compute their plan first). */
  plan?: WalkPlan;
  onProgress?: (p: { discovered: number; done: number; counters: RunCounters }) => void;
}

/**
 * Visits (request, then load) the walk runs at once per upstream request slot. With 2, a slot's
 * next request is out while the previous response loads; the visits waiting on the database
 * hold no request slot, and at most this many responses per slot are held in memory.
 */
const VISITS_PER_REQUEST_SLOT = 2;

/**
 * A body that could not be used, retried already: not JSON even after the `,,` repair (the
 * client's ApiError of kind 'body' wraps the PayloadError), not a v2 envelope, or missing its list.
 */
function bodyProblem(err: unknown): { snippet: string } | null {
  if (err instanceof PayloadError) return { snippet: err.snippet };
  if (err instanceof ApiError && err.kind === 'body') {
    return { snippet: err.cause instanceof PayloadError ? err.cause.snippet : '' };
  }
  if (err instanceof EnvelopeError) return { snippet: '' };
  return null;
}

/**
 * One run of a job: takes the job's advisory lock (or records a `skipped` run), walks the
 * upstream, loads each response in its own transaction, and records the outcome in
 * pitwall.sync_runs. A scope that fails is recorded on its sync_state row and the walk goes on;
 * only an upstream that is plainly down, a database that is gone, or an abort ends it early.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions = {}): Promise<RunSummary> {
  const job = options.job ?? 'full';
  const trigger = options.trigger ?? 'manual';
  const started = performance.now();
  const lock = await tryJobLock(deps.pool, job);
  if (!lock) {
    const runId = await insertRun(deps.pool, job, trigger, 'skipped');
    deps.logger.info({ runId, job }, 'another process is running this job; skipped');
    const summary = buildSummary(runId, job, 'skipped', started, new RunCounters(), undefined);
    deps.observer?.runFinished?.(summary);
    return summary;
  }
  try {
    await markAbandoned(deps.pool, job);
    const runId = await insertRun(deps.pool, job, trigger, 'running');
    const logger = deps.logger.child({ runId, job });
    deps.observer?.runStarted?.({ runId, job });
    const summary = await execute(deps, options, job, runId, logger, started, lock);
    deps.observer?.runFinished?.(summary);
    return summary;
  } finally {
    await lock.release();
  }
}

async function execute(
  deps: SyncDeps,
  options: SyncOptions,
  job: JobName,
  runId: number,
  logger: Logger,
  started: number,
  lock: JobLock,
): Promise<RunSummary> {
  const counters = new RunCounters();
  // Internal abort: a fatal error in one branch stops the others from starting new requests.
  const stop = new AbortController();
  // So does losing the job lock (its connection dropped and another process took it).
  lock.lost.addEventListener('abort', () => stop.abort(lock.lost.reason), { once: true });
  // Three signals: `signal` cancels in-flight requests (the caller's abort, or a fatal error);
  // `stopping` is the caller asking the run to end (drain or abort); `halt` stops anything new
  // from starting (either of them). A drain alone never cancels what is in flight.
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const stopping = AbortSignal.any([options.drain, options.signal].filter((s): s is AbortSignal => s !== undefined));
  const halt = AbortSignal.any([stopping, stop.signal]);
  const api = createRunClient(deps, { counters, logger, halt });
  const ctx: ProcessContext = {
    pool: deps.pool,
    runId,
    counters,
    hashes: await loadResponseHashes(deps.pool),
    touches: new ScopeTouches(deps.pool, runId),
    dimensions: new DimensionCache(),
    keepResponses: deps.config.keepResponses,
    shapes: new ShapeTracker(deps.pool, runId, logger, [deps.config.apiKey]),
    logger,
    signal,
  };
  const refusals = new KeyRefusalWatch();
  // The shape report is evidence for a person: failing to write it never fails the run.
  const flushShapes = () =>
    ctx.shapes?.flush().catch((err: unknown) => logger.warn({ err: String(err) }, 'could not record response shapes'));
  const scopes = { done: 0, total: 0 };
  const progress = () => options.onProgress?.({ discovered: scopes.total, done: scopes.done, counters });
  const heartbeat = startHeartbeat(deps.pool, { runId, job, started, counters, scopes }, logger, deps.heartbeatMs);

  const visit = async (ep: Endpoint, params: Params): Promise<Seed[]> => {
    const query = canonicalQuery(params);
    const scopeLog = logger.child({ endpoint: ep.name });
    let refused = false;
    try {
      const body = knownBodyTest(ctx, ep, query);
      const res = await api.get(ep.path, params, { signal, known: body.known });
      if (res.kind === 'known') {
        // The client says known only for a body whose digest equals the scope's recorded hash.
        await recordUnchanged(ctx, ep, query);
        return [];
      }
      if (res.kind === 'invalid') {
        refused = true;
        counters.scopes.invalid += 1;
        await recordScopeFailure(deps.pool, { endpoint: ep.name, params: query, status: 'invalid', error: res.reason, runId });
        scopeLog.warn({ params: query, reason: res.reason }, 'upstream answered RequestValid 0');
        return [];
      }
      if (res.repaired) counters.repairedBodies += 1;
      return await processResponse(ctx, ep, params, query, res.body, body.digest(), { text: res.text });
    } catch (err) {
      // Stopped (drained, aborted, or another branch failed): not this scope's fault; record nothing.
      if (halt.aborted) throw err;
      if (err instanceof UpstreamDownError || (err instanceof DatabaseError && !isScopeDataError(err))) {
        stop.abort(err);
        throw err;
      }
      if (!(err instanceof ApiError || err instanceof PayloadError || err instanceof EnvelopeError || isScopeDataError(err))) {
        stop.abort(err);
        throw err;
      }
      counters.scopes.failed += 1;
      refused = isRefusalStatus(err);
      const message = err instanceof Error ? err.message : String(err);
      scopeLog.warn({ params: query, err: message }, 'scope failed; recorded and skipped');
      await recordScopeFailure(deps.pool, { endpoint: ep.name, params: query, status: 'error', error: message, runId });
      const badBody = bodyProblem(err);
      if (badBody) {
        await insertBodyReject(deps.pool, { runId, endpoint: ep.name, params: query }, message, badBody.snippet);
        counters.add(ep.tables[0] ?? 'results', { rejected: 1 });
      }
      return [];
    } finally {
      refusals.visited(ep, query, refused);
      scopes.done += 1;
      progress();
    }
  };

  const phases: JobPhase[] = options.plan ? [{ name: 'plan', plan: async () => options.plan ?? null }] : jobPhases(job);
  const planContext = {
    pool: deps.pool,
    now: (deps.now ?? (() => new Date()))(),
    settleDays: deps.config.settleDays,
    timezone: deps.config.timezone,
    logger,
  };
  let status: RunStatus = 'succeeded';
  let error: string | undefined;
  let keyRefused = false;
  try {
    let cutShort = 0;
    for (const phase of phases) {
      if (halt.aborted) {
        cutShort += 1;
        break;
      }
      const plan = await phase.plan(planContext);
      if (!plan) continue;
      refusals.addRoots(plan.roots);
      logger.debug({ phase: phase.name, roots: plan.roots.length }, 'walking');
      const result = await walk(plan, {
        concurrency: deps.config.concurrency * VISITS_PER_REQUEST_SLOT,
        signal: halt,
        visit,
        onDiscovered: () => {
          scopes.total += 1;
          progress();
        },
      });
      cutShort += result.cutShort;
      // The next phase may plan from sync_state (the live job's stale events do).
      await ctx.touches.flush();
      await flushShapes();
    }
    // Success needs the lock to have been held throughout: wait out a retake after a dropped
    // lock connection, and fail if it was lost (a loss while no visit was in flight throws only here).
    await lock.confirm();
    if (cutShort > 0 && stopping.aborted) {
      status = 'interrupted';
      error = 'stopped before the walk was complete';
      logger.warn({ cutShort }, 'run interrupted');
    } else if (refusals.keyRefused(counters.scopes.loaded + counters.scopes.unchanged)) {
      status = 'failed';
      keyRefused = true;
      error = KEY_REFUSED_MESSAGE;
      logger.error({ invalid: counters.scopes.invalid, failed: counters.scopes.failed }, KEY_REFUSED_MESSAGE);
    } else if (counters.scopes.failed > 0 || counters.scopes.invalid > 0) {
      status = 'failed';
      error = `${counters.scopes.failed} scope(s) failed and ${counters.scopes.invalid} answered RequestValid 0; see pitwall.sync_state`;
    }
  } catch (err) {
    status = stopping.aborted ? 'interrupted' : 'failed';
    error = err instanceof Error ? err.message : String(err);
    logger.error({ err: error }, status === 'interrupted' ? 'run interrupted' : 'run failed');
    // The scopes found unchanged before the end were checked all the same.
    await ctx.touches.flush().catch((err: unknown) => logger.warn({ err: String(err) }, 'could not record unchanged scopes'));
    await flushShapes();
  }
  await heartbeat.stop();
  counters.unknownFields = ctx.shapes?.unmodelledCounts() ?? {};
  const drift = await driftForObserver(deps, logger);
  const summary = {
    ...buildSummary(runId, job, status, started, counters, error),
    ...(drift ? { drift } : {}),
    ...(keyRefused ? { keyRefused: true as const } : {}),
  };
  await finishRun(deps.pool, runId, status, counters.totals(), scopes, summary, error ?? null);
  logger.info({ status, requests: summary.requests, durationMs: summary.durationMs }, 'run finished');
  return summary;
}

/**
 * The warehouse's shape report as path counts, read only for a watcher (the worker's metrics
 * gauge): a plain `pitwall sync` has no use for it. Undefined when it could not be read.
 */
async function driftForObserver(deps: SyncDeps, logger: Logger): Promise<RunSummary['drift']> {
  if (!deps.observer?.runFinished) return undefined;
  return loadDrift(deps.pool).then(
    (report) => driftCounts(report),
    (err: unknown) => void logger.warn({ err: String(err) }, 'could not read the shape report'),
  );
}
