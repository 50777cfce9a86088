import pLimit from 'p-limit';

import { DEFAULT_BACKOFF } from '../api/backoff.js';
import { createApiClient, type ApiClient } from '../api/client.js';
import { abortableSleep } from '../api/rate-limit.js';
import type { Logger } from '../log.js';

import type { RunCounters } from './counters.js';
import type { SyncDeps } from './run.js';

/**
 * The upstream client of one sync run, configured from the run's settings, counting its
 * requests and retries into the run's counters, and stopping at `halt` (a drain, an abort or a
 * fatal error elsewhere in the run).
 */
export function createRunClient(deps: SyncDeps, run: { counters: RunCounters; logger: Logger; halt: AbortSignal }): ApiClient {
  const { counters, logger, halt } = run;
  // PITWALL_CONCURRENCY bounds the requests in flight upstream, and only them: the client holds
  // a slot while a request is out and its body is read, and a visit parses and loads the
  // response after giving it back, so the next requests are already out while it does, and the
  // run is bound by the upstream rather than by itself.
  const upstream = pLimit(deps.config.concurrency);
  return createApiClient({
    baseUrl: deps.config.apiBaseUrl,
    apiKey: deps.config.apiKey,
    timeoutMs: deps.config.requestTimeoutMs,
    maxAttempts: deps.config.maxAttempts,
    maxRetryWaitMs: deps.config.maxRetryWaitMs,
    maxRps: deps.config.maxRps,
    backoff: { baseMs: deps.config.retryBaseMs, capMs: DEFAULT_BACKOFF.capMs },
    consecutiveFailureLimit: deps.config.maxConsecutiveFailures,
    logger,
    // A visit that waited for a slot through a drain starts no request, as the walk starts no visit.
    slot: (send) =>
      upstream(() => {
        halt.throwIfAborted();
        return send();
      }),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
    // The client sleeps before a retry and for the rate limit; a drain ends those waits, so no
    // new attempt starts after it.
    sleep: (ms, s) => abortableSleep(ms, s ? AbortSignal.any([s, halt]) : halt),
    observer: {
      onRequest: (e) => {
        counters.requests += 1;
        deps.observer?.api?.onRequest?.(e);
      },
      onRetry: (e) => {
        counters.retries += 1;
        deps.observer?.api?.onRetry?.(e);
      },
    },
  });
}
