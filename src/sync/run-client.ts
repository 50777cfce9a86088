import pLimit, { type LimitFunction } from 'p-limit';
import type pg from 'pg';

import { DEFAULT_BACKOFF } from '../api/backoff.js';
import { processByteBudget } from '../api/byte-budget.js';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../api/client.js';
import { abortableSleep } from '../api/rate-limit.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

import type { RunCounters } from './counters.js';
import { sharedRateLimiter } from './sql/request-pace.js';
import { sharedSlot, type SharedSlot } from './sql/request-slots.js';
import type { SyncDeps } from './types.js';

/** How long past its request's timeout a slot of pitwall.request_slots stays leased: the rate-limit wait and the body's reading happen inside it. */
const SLOT_LEASE_MARGIN_MS = 60_000;

/** The client settings every upstream client of pitwall takes from the configuration. */
export function apiClientOptions(config: Config & { apiKey: string }, logger: Logger): ApiClientOptions {
  return {
    baseUrl: config.apiBaseUrl,
    apiKey: config.apiKey,
    timeoutMs: config.requestTimeoutMs,
    maxAttempts: config.maxAttempts,
    maxRetryWaitMs: config.maxRetryWaitMs,
    maxRps: config.maxRps,
    backoff: { baseMs: config.retryBaseMs, capMs: DEFAULT_BACKOFF.capMs },
    consecutiveFailureLimit: config.maxConsecutiveFailures,
    body: { maxBytes: config.maxBodyBytes, maxDecodedBytes: config.maxDecodedBytes, budget: processByteBudget(config.maxBytesInFlight) },
    logger,
  };
}

/**
 * The upstream client of one sync run, configured from the run's settings, counting its
 * requests and retries into the run's counters, and stopping at `halt` (a drain, an abort or a
 * fatal error elsewhere in the run).
 */
export function createRunClient(
  deps: SyncDeps,
  run: { runId: number; source: string; counters: RunCounters; logger: Logger; halt: AbortSignal },
): ApiClient {
  const { runId, source, counters, logger, halt } = run;
  // PITWALL_CONCURRENCY bounds the requests in flight upstream, and only them: the client holds
  // a slot while a request is out and its body is read, and a visit parses and loads the
  // response after giving it back, so the next requests are already out while it does, and the
  // run is bound by the upstream rather than by itself.
  const upstream = upstreamSlots(deps.pool, source, deps.config.concurrency);
  // ... and across processes, each request holds one of the source's rows in
  // pitwall.request_slots while it is out, in the run's name. Two statements per request: at a
  // polite rate nothing, but unpaced (PITWALL_MAX_RPS=0, politeness off, as against a simulator)
  // they would cost a full sync about 15 % of its time, so there each process keeps its own.
  const shared: SharedSlot =
    deps.config.maxRps > 0
      ? sharedSlot(deps.pool, source, runId, deps.config.concurrency, deps.config.requestTimeoutMs + SLOT_LEASE_MARGIN_MS, abortableSleep)
      : (send) => send();
  // The client sleeps before a retry and for the rate limit; a drain ends those waits, so no
  // new attempt starts after it.
  const sleep = (ms: number, s?: AbortSignal) => abortableSleep(ms, s ? AbortSignal.any([s, halt]) : halt);
  return createApiClient({
    ...apiClientOptions(deps.config, logger),
    // A visit that waited for a slot through a drain starts no request, as the walk starts no visit.
    slot: (send) =>
      upstream(() => {
        halt.throwIfAborted();
        return shared(send, halt);
      }),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    sleep,
    // The source's rate, and all sources' together, hold across all runs, in this process and every other.
    limiter: sharedRateLimiter(deps.pool, source, { maxRps: deps.config.maxRps, globalMaxRps: deps.config.globalMaxRps }, sleep),
    observer: {
      onRequest: (e) => {
        counters.requests += 1;
        deps.observer?.api?.onRequest?.({ ...e, source });
      },
      onRetry: (e) => {
        counters.retries += 1;
        deps.observer?.api?.onRetry?.({ ...e, source });
      },
    },
  });
}

// By pool: a pool is this process's way to one warehouse, whose source names these are.
const slotsByPool = new WeakMap<pg.Pool, Map<string, LimitFunction>>();

/**
 * A source's requests in flight in this process: one limit for all its runs here, so a `live`
 * run beside a `full` of the same source in one worker shares the source's concurrency rather
 * than doubling it. It comes before the slots shared across processes (pitwall.request_slots),
 * so this process never asks the warehouse for more of them than the concurrency.
 */
function upstreamSlots(pool: pg.Pool, source: string, concurrency: number): LimitFunction {
  let bySource = slotsByPool.get(pool);
  if (!bySource) slotsByPool.set(pool, (bySource = new Map()));
  const limit = bySource.get(source);
  if (!limit) {
    const created = pLimit(concurrency);
    bySource.set(source, created);
    return created;
  }
  // The runs of a source in one process share its settings; a run started with another value
  // (a test changing it between runs) sets it for the runs from then on.
  limit.concurrency = concurrency;
  return limit;
}
