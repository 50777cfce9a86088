import type { Logger } from '../log.js';

import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { ByteBudget } from './byte-budget.js';
import { ApiError, UpstreamDownError } from './errors.js';
import { httpGet, type Transport } from './http-get.js';
import { interpretBody } from './interpret-body.js';
import { buildUrl, canonicalQuery, type QueryParams } from './query.js';
import { abortableSleep, createRateLimiter, type RateLimiter } from './rate-limit.js';
import { sendRequest } from './send.js';
import type { ApiObserver, ApiResult, AttemptOutcome, Failure, GetOptions, RequestEvent } from './types.js';

export interface ApiClientOptions {
  /** Upstream origin without `/v2`, e.g. `https://api.myracepass.com` or a simulator's URL. */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, covering headers and body. */
  timeoutMs: number;
  /** Attempts per request, the first included. */
  maxAttempts: number;
  /** Total time one request may wait between its attempts; 0 disables retries. */
  maxRetryWaitMs: number;
  /** Attempts started per second across the client; 0 = unlimited. */
  maxRps: number;
  /** Paces the attempts instead of a limiter of `maxRps` of the client's own (one shared with other clients of the key). */
  limiter?: RateLimiter;
  logger: Logger;
  /** The HTTP GET: httpGet unless given; a fetch fits too (tests wrap one). */
  fetch?: Transport;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Milliseconds since the epoch; read for Retry-After dates and rate limiting. */
  now?: () => number;
  backoff?: BackoffOptions;
  /** Failed requests in a row after which the client stops calling the upstream. Default 20. */
  consecutiveFailureLimit?: number;
  observer?: ApiObserver;
  /**
   * What one body may cost (as received, after decoding, in bytes) and the process's budget its
   * decoded bytes are held in; no limits when absent.
   */
  body?: { maxBytes: number; maxDecodedBytes: number; budget?: ByteBudget };
  /**
   * Runs the network part of each attempt (the rate limit, the request and reading the body):
   * the caller's bound on requests in flight. Decoding and parsing run after it has returned,
   * so a slot is never held by CPU work. Runs it directly when absent.
   */
  slot?: <T>(send: () => Promise<T>) => Promise<T>;
}

export interface ApiClient {
  /** GETs `path` (e.g. `/v2/schedules/`) once, retrying transient faults. */
  get(path: string, params: QueryParams, options?: GetOptions): Promise<ApiResult>;
  /** Requests that have failed in a row, each after all its retries. */
  readonly consecutiveFailures: number;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const transport = options.fetch ?? httpGet;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const failureLimit = options.consecutiveFailureLimit ?? 20;
  const { logger, observer, apiKey } = options;
  const secrets = [apiKey];
  const limiter = options.limiter ?? createRateLimiter(options.maxRps, { now, sleep });
  const slot = options.slot ?? ((send) => send());
  const limits = { maxBytes: options.body?.maxBytes ?? Infinity, maxDecodedBytes: options.body?.maxDecodedBytes ?? Infinity };
  const budget = options.body?.budget ?? new ByteBudget(0);

  let consecutiveFailures = 0;
  let lastFailure: ApiError | undefined;

  async function attempt(
    url: string,
    shownUrl: string,
    event: Omit<RequestEvent, 'status' | 'durationMs'>,
    { signal: callerSignal, known }: GetOptions,
  ): Promise<AttemptOutcome> {
    const hold = budget.hold();
    let handedOn = false;
    try {
      const received = await slot(async () => {
        await limiter.acquire(callerSignal);
        return sendRequest(transport, url, {
          shownUrl,
          timeoutMs: options.timeoutMs,
          callerSignal,
          secrets,
          now,
          limits,
          hold,
          done: (status, durationMs) => observer?.onRequest?.({ ...event, status, durationMs }),
        });
      });
      if (!('bytes' in received)) return received;
      const outcome = interpretBody(received.bytes, { shownUrl, attempts: event.attempt, charset: received.charset, known, secrets, release: () => hold.release() });
      handedOn = 'result' in outcome && outcome.result.kind === 'ok';
      return outcome;
    } finally {
      // Only an ok body keeps its bytes held, until its `release`.
      if (!handedOn) hold.release();
    }
  }

  /** Milliseconds to wait before the next attempt, or null to give up now. */
  function retryDelay(failure: Failure, attemptNo: number, waitedMs: number, ofKind: number): number | null {
    const remaining = options.maxRetryWaitMs - waitedMs;
    if (!failure.retryable || attemptNo >= options.maxAttempts || ofKind >= (failure.maxOfKind ?? Infinity) || remaining <= 0) return null;
    // A server that asks for more time than we have left would only refuse an early retry.
    if (failure.retryAfterMs != null) return failure.retryAfterMs <= remaining ? failure.retryAfterMs : null;
    return Math.min(backoffDelayMs(attemptNo, backoff, random), remaining);
  }

  function giveUp(failure: Failure, shownUrl: string, attempts: number, answered: boolean): ApiError {
    const error = new ApiError(`${failure.message} (${attempts} attempt${attempts === 1 ? '' : 's'})`, {
      kind: failure.kind,
      retryable: failure.retryable,
      url: shownUrl,
      status: failure.status,
      attempts,
      ...(failure.limit ? { limit: failure.limit } : {}),
      cause: failure.cause,
    });
    // Only faults of the upstream count toward "down"; a deliberate answer (a 404) proves it is up.
    if (failure.retryable) {
      consecutiveFailures += 1;
      lastFailure = error;
      if (consecutiveFailures === failureLimit) {
        logger.error({ consecutiveFailures }, 'upstream considered down; refusing further requests');
      }
    } else if (answered) {
      consecutiveFailures = 0;
    }
    return error;
  }

  async function get(
    path: string,
    params: QueryParams,
    getOptions: GetOptions = {},
  ): Promise<ApiResult> {
    const { signal } = getOptions;
    if (consecutiveFailures >= failureLimit) {
      throw new UpstreamDownError(consecutiveFailures, { cause: lastFailure });
    }
    const query = canonicalQuery(params);
    const url = buildUrl(options.baseUrl, path, params, apiKey);
    // Every message, log line and event uses this key-free form.
    const shownUrl = buildUrl(options.baseUrl, path, params);
    let waitedMs = 0;
    // Attempts that failed, by kind: a kind may give up sooner than the others (Failure.maxOfKind).
    const failedOfKind = new Map<string, number>();
    for (let attemptNo = 1; ; attemptNo += 1) {
      signal?.throwIfAborted();
      const outcome = await attempt(url, shownUrl, { path, params: query, attempt: attemptNo }, getOptions);
      if ('rejected' in outcome) {
        // The upstream is up and would serve the same cached body again: report it, do not retry.
        consecutiveFailures = 0;
        logger.warn({ path, params: query, attempts: attemptNo }, 'upstream body is not a v2 envelope');
        throw outcome.rejected;
      }
      if ('result' in outcome) {
        consecutiveFailures = 0;
        const { kind, attempts } = outcome.result;
        logger.debug({ path, params: query, kind, attempts }, 'upstream request done');
        if (outcome.result.kind === 'ok' && !getOptions.holdBody) outcome.result.release();
        return outcome.result;
      }
      const { failure } = outcome;
      const ofKind = (failedOfKind.get(failure.kind) ?? 0) + 1;
      failedOfKind.set(failure.kind, ofKind);
      const delayMs = retryDelay(failure, attemptNo, waitedMs, ofKind);
      const reason = failure.kind === 'http' ? `http ${failure.status}` : failure.kind;
      if (delayMs === null) {
        // Debug, as the retries: the caller reports the failure (a scope's warning, the run's one line).
        logger.debug({ path, params: query, attempts: attemptNo, reason }, 'upstream request failed; giving up');
        throw giveUp(failure, shownUrl, attemptNo, failure.status !== undefined);
      }
      const retry = { path, params: query, reason, delayMs, attempt: attemptNo };
      // A retry is routine; the run's summary, the metrics and debug logs count them.
      logger.debug(retry, 'upstream request failed; retrying');
      observer?.onRetry?.(retry);
      await sleep(delayMs, signal);
      waitedMs += delayMs;
    }
  }

  return {
    get,
    get consecutiveFailures() {
      return consecutiveFailures;
    },
  };
}
