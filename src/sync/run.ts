import type pg from 'pg';

import { createApiClient } from '../api/client.js';
import { ApiError, PayloadError, UpstreamDownError } from '../api/errors.js';
import { canonicalQuery } from '../api/query.js';
import type { Config } from '../config.js';
import { DatabaseError } from '../db/errors.js';
import type { Logger } from '../log.js';

import { RunCounters, type TableCounts } from './counters.js';
import type { Endpoint, Params } from './endpoints.js';
import type { Seed } from './extract/types.js';
import { fullPlan, type JobName } from './jobs.js';
import { EnvelopeError, processResponse, type ProcessContext } from './process-response.js';
import { tryJobLock } from './sql/job-lock.js';
import { insertBodyReject } from './sql/rejects.js';
import { finishRun, insertRun, markAbandoned, type RunStatus } from './sql/sync-runs.js';
import { loadResponseHashes, recordScopeFailure } from './sql/sync-state.js';
import { walk, type WalkPlan } from './walk.js';

export interface RunSummary {
  runId: number;
  job: JobName;
  status: RunStatus;
  requests: number;
  retries: number;
  durationMs: number;
  tables: Partial<Record<string, TableCounts>>;
  scopes: RunCounters['scopes'];
  unknownFields: number;
  repairedBodies: number;
  error?: string;
}

export interface SyncDeps {
  pool: pg.Pool;
  config: Config & { apiKey: string };
  logger: Logger;
  /** Injected by tests that need to watch or break the transport; the real fetch otherwise. */
  fetch?: typeof fetch;
}

export interface SyncOptions {
  job?: JobName;
  trigger?: 'manual' | 'cron';
  /** Aborting stops new requests, cancels in-flight ones, and ends the run `interrupted`. */
  signal?: AbortSignal;
  /** Replaces the job's own plan (tests, and jobs that compute their plan first). */
  plan?: WalkPlan;
  onProgress?: (p: { discovered: number; done: number; counters: RunCounters }) => void;
}

/** Postgres data exceptions (22xxx) and integrity violations (23xxx): bad data in one scope, not a dead database. */
const isScopeDataError = (err: unknown): boolean => err instanceof DatabaseError && /^2[23]/.test(err.sqlstate ?? '');

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
    return emptySummary(runId, job, 'skipped', started);
  }
  try {
    await markAbandoned(deps.pool, job);
    const runId = await insertRun(deps.pool, job, trigger, 'running');
    const logger = deps.logger.child({ runId, job });
    return await execute(deps, options, job, runId, logger, started);
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
): Promise<RunSummary> {
  const counters = new RunCounters();
  // Internal abort: a fatal error in one branch stops the others from starting new requests.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const api = createApiClient({
    baseUrl: deps.config.apiBaseUrl,
    apiKey: deps.config.apiKey,
    timeoutMs: deps.config.requestTimeoutMs,
    maxAttempts: deps.config.maxAttempts,
    maxRetryWaitMs: deps.config.maxRetryWaitMs,
    maxRps: deps.config.maxRps,
    logger,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    observer: {
      onRequest: () => void (counters.requests += 1),
      onRetry: () => void (counters.retries += 1),
    },
  });
  const ctx: ProcessContext = {
    pool: deps.pool,
    runId,
    counters,
    hashes: await loadResponseHashes(deps.pool),
    logger,
    signal,
  };
  let discovered = 0;
  let done = 0;
  const progress = () => options.onProgress?.({ discovered, done, counters });

  const visit = async (ep: Endpoint, params: Params): Promise<Seed[]> => {
    const query = canonicalQuery(params);
    const scopeLog = logger.child({ endpoint: ep.name });
    try {
      const res = await api.get(ep.path, params, { signal });
      if (res.kind === 'invalid') {
        counters.scopes.invalid += 1;
        await recordScopeFailure(deps.pool, { endpoint: ep.name, params: query, status: 'invalid', error: res.reason, runId });
        scopeLog.warn({ params: query, reason: res.reason }, 'upstream answered RequestValid 0');
        return [];
      }
      if (res.repaired) counters.repairedBodies += 1;
      return await processResponse(ctx, ep, params, query, res.body);
    } catch (err) {
      if (signal.aborted || err instanceof UpstreamDownError || (err instanceof DatabaseError && !isScopeDataError(err))) {
        stop.abort(err);
        throw err;
      }
      if (!(err instanceof ApiError || err instanceof PayloadError || err instanceof EnvelopeError || isScopeDataError(err))) {
        stop.abort(err);
        throw err;
      }
      counters.scopes.failed += 1;
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
      done += 1;
      progress();
    }
  };

  let status: RunStatus = 'succeeded';
  let error: string | undefined;
  try {
    await walk(options.plan ?? fullPlan(), {
      concurrency: deps.config.concurrency,
      signal,
      visit,
      onDiscovered: () => {
        discovered += 1;
        progress();
      },
    });
    if (counters.scopes.failed > 0 || counters.scopes.invalid > 0) {
      status = 'failed';
      error = `${counters.scopes.failed} scope(s) failed and ${counters.scopes.invalid} answered RequestValid 0; see pitwall.sync_state`;
    }
  } catch (err) {
    status = options.signal?.aborted ? 'interrupted' : 'failed';
    error = err instanceof Error ? err.message : String(err);
    logger.error({ err: error }, status === 'interrupted' ? 'run interrupted' : 'run failed');
  }
  const summary = buildSummary(runId, job, status, started, counters, error);
  await finishRun(deps.pool, runId, status, counters.totals(), summary, error ?? null);
  logger.info({ status, requests: summary.requests, durationMs: summary.durationMs }, 'run finished');
  return summary;
}

function buildSummary(
  runId: number,
  job: JobName,
  status: RunStatus,
  started: number,
  counters: RunCounters,
  error: string | undefined,
): RunSummary {
  return {
    runId,
    job,
    status,
    requests: counters.requests,
    retries: counters.retries,
    durationMs: Math.round(performance.now() - started),
    tables: { ...counters.tables },
    scopes: { ...counters.scopes },
    unknownFields: counters.unknownFields,
    repairedBodies: counters.repairedBodies,
    ...(error ? { error } : {}),
  };
}

function emptySummary(runId: number, job: JobName, status: RunStatus, started: number): RunSummary {
  return buildSummary(runId, job, status, started, new RunCounters(), undefined);
}
