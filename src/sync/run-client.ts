import pLimit, { type LimitFunction } from 'p-limit';

import { DEFAULT_BACKOFF } from '../api/backoff.js';
import { processByteBudget } from '../api/byte-budget.js';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../api/client.js';
import { abortableSleep } from '../api/rate-limit.js';
import type { Config } from '../config.js';
import type { ProcessPace, SourcePace } from '../coordination/pace.js';
import type { Logger } from '../log.js';

import type { RunCounters } from './counters.js';
import type { SyncDeps } from './types.js';

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
 * The upstream client of one sync run, configured from the run's settings, keeping to its
 * source's pace in this process (`pace`), counting its requests and retries into the run's
 * counters, and stopping at `halt` (a drain, an abort or a fatal error elsewhere in the run) or
 * when `held` throws (the run's lease ran out).
 */
export function createRunClient(
  deps: SyncDeps,
  run: { source: string; counters: RunCounters; logger: Logger; halt: AbortSignal; held: () => void; pace: ProcessPace },
): ApiClient {
  const { source, counters, logger, halt, held } = run;
  const { maxRps, globalMaxRps, concurrency } = deps.config;
  const pace = run.pace.of(source, { maxRps, globalMaxRps, concurrency });
  // PITWALL_CONCURRENCY bounds the requests in flight upstream, and only them: the client holds
  // a slot while a request is out and its body is read, and a visit parses and loads the
  // response after giving it back, so the next requests are already out while it does, and the
  // run is bound by the upstream rather than by itself. One limit for all the source's runs in
  // this process, so a `live` run beside a `full` shares the source's concurrency.
  const upstream = upstreamSlots(pace);
  // The client sleeps before a retry and for the rate limit; a drain ends those waits, so no
  // new attempt starts after it.
  const halting = (s?: AbortSignal) => (s ? AbortSignal.any([s, halt]) : halt);
  const sleep = (ms: number, s?: AbortSignal) => abortableSleep(ms, halting(s));
  return createApiClient({
    ...apiClientOptions(deps.config, logger),
    // A visit that waited for a slot through a drain starts no request, as the walk starts no visit.
    slot: (send) => {
      upstream.concurrency = pace.concurrency();
      return upstream(() => {
        halt.throwIfAborted();
        return send();
      });
    },
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    sleep,
    // The lease is read last, as the request's turn comes: a process resumed after a pause past its
    // deadline sends nothing, not even a request whose turn came before the pause.
    limiter: { acquire: (s) => pace.limiter.acquire(halting(s)).then(held) },
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

const slotsByPace = new WeakMap<SourcePace, LimitFunction>();

/** A source's requests in flight in this process, across all its runs here. */
function upstreamSlots(pace: SourcePace): LimitFunction {
  let limit = slotsByPace.get(pace);
  if (!limit) slotsByPace.set(pace, (limit = pLimit(pace.concurrency())));
  return limit;
}
