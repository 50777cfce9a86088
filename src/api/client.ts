import type { Logger } from '../log.js';
import { redact, redactError } from '../secrets.js';

import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import { ApiError, UpstreamDownError } from './errors.js';
import { httpGet, type Transport } from './http-get.js';
import { interpretBody, type AttemptOutcome, type Failure } from './interpret-body.js';
import { buildUrl, canonicalQuery, type QueryParams } from './query.js';
import { abortableSleep, createRateLimiter } from './rate-limit.js';
import { parseRetryAfterMs } from './retry-after.js';

export type ApiResult =
  /**
   * `text`: the JSON text `body` was parsed from (decoded, `,,` repaired, the key masked), which
   * pitwall keeps; `maskedValues`: occurrences of the key masked; `reserialized`: the key was
   * spelled in escapes and masked in the parsed body, so `text` is its JSON and a digest of the
   * bytes received (GetOptions.known) describes neither.
   */
  | { kind: 'ok'; body: Record<string, unknown>; text: string; repaired: boolean; attempts: number; bytes: number; maskedValues: number; reserialized: boolean }
  /** The upstream answered but refused the request (RequestValid not 1); retrying will not help. */
  | { kind: 'invalid'; body: Record<string, unknown>; reason: string; attempts: number }
  /** The caller's `known` recognised the body (the key masked), which was therefore not parsed. */
  | { kind: 'known'; attempts: number; bytes: number; maskedValues: number };

/** Per request: the caller's signal, and a test that lets an already-known body go unparsed. */
export interface GetOptions {
  signal?: AbortSignal;
  /**
   * Called with each 2xx body's bytes before they are parsed (with the key masked, when they held
   * it); true makes the request end as `{ kind: 'known' }` without parsing. For bodies the caller
   * has seen before: the bytes are whatever the upstream sent, so only a match with a good
   * earlier body is safe.
   */
  known?: (body: Uint8Array) => boolean;
}

/** `params` is the canonical, key-free query string (what pitwall stores as a scope's params). */
export interface RequestEvent {
  path: string;
  params: string;
  /** HTTP status, or null when no response arrived (network fault, timeout). */
  status: number | null;
  durationMs: number;
  attempt: number;
}

export interface RetryEvent {
  path: string;
  params: string;
  /** `http 503`, `network`, `timeout` or `body`. */
  reason: string;
  delayMs: number;
  attempt: number;
}

/** Hooks for metrics; called synchronously, so they must not throw or block. */
export interface ApiObserver {
  onRequest?(event: RequestEvent): void;
  onRetry?(event: RetryEvent): void;
}

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

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
// node:http reports a dropped connection as "socket hang up"; a fetch standing in for httpGet (a
// test's) as "fetch failed" (before headers) or "terminated" (mid-body).
const NETWORK_MESSAGE = /fetch failed|terminated|socket hang up|other side closed|ECONNRESET/i;

/** True for a connection-level fault, looking through the `cause` chain undici builds. */
function isNetworkFault(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return NETWORK_MESSAGE.test(err.message) || isNetworkFault(err.cause, depth + 1);
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const fetchImpl = options.fetch ?? httpGet;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const failureLimit = options.consecutiveFailureLimit ?? 20;
  const { logger, observer, apiKey } = options;
  const secrets = [apiKey];
  const limiter = createRateLimiter(options.maxRps, { now, sleep });
  const slot = options.slot ?? ((send) => send());

  let consecutiveFailures = 0;
  let lastFailure: ApiError | undefined;

  async function attempt(
    url: string,
    shownUrl: string,
    event: Omit<RequestEvent, 'status' | 'durationMs'>,
    { signal: callerSignal, known }: GetOptions,
  ): Promise<AttemptOutcome> {
    const received = await slot(async () => {
      await limiter.acquire(callerSignal);
      return send(url, shownUrl, event, callerSignal);
    });
    return 'bytes' in received ? interpretBody(received.bytes, { shownUrl, attempts: event.attempt, known, secrets }) : received;
  }

  /** One request and its body's bytes, or the failure. */
  async function send(
    url: string,
    shownUrl: string,
    event: Omit<RequestEvent, 'status' | 'durationMs'>,
    callerSignal: AbortSignal | undefined,
  ): Promise<{ bytes: Uint8Array } | { failure: Failure }> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    const started = performance.now();
    let status: number | null = null;
    let bytes: Uint8Array;
    try {
      const res = await fetchImpl(url, { signal, headers: { accept: 'application/json' } });
      status = res.status;
      if (!res.ok) {
        // Free the connection without reading an error page we have no use for.
        await res.body?.cancel().catch(() => undefined);
        const retryable = RETRYABLE_STATUS.has(res.status);
        const retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after'), new Date(now()));
        const message = `GET ${shownUrl} failed: HTTP ${res.status}`;
        return { failure: { kind: 'http', retryable, status: res.status, retryAfterMs, message } };
      }
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      // The caller's abort ends the request at once, whatever else is going on.
      if (callerSignal?.aborted) throw callerSignal.reason;
      const cause = redactError(err, secrets);
      if (timeout.aborted) {
        const message = `GET ${shownUrl} timed out after ${options.timeoutMs} ms`;
        return { failure: { kind: 'timeout', retryable: true, message, cause } };
      }
      const detail = redact(err instanceof Error ? err.message : String(err), secrets);
      const message = `GET ${shownUrl} failed: ${detail}`;
      return { failure: { kind: 'network', retryable: isNetworkFault(err), message, cause } };
    } finally {
      observer?.onRequest?.({ ...event, status, durationMs: performance.now() - started });
    }
    return { bytes };
  }

  /** Milliseconds to wait before the next attempt, or null to give up now. */
  function retryDelay(failure: Failure, attemptNo: number, waitedMs: number): number | null {
    const remaining = options.maxRetryWaitMs - waitedMs;
    if (!failure.retryable || attemptNo >= options.maxAttempts || remaining <= 0) return null;
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
        return outcome.result;
      }
      const { failure } = outcome;
      const delayMs = retryDelay(failure, attemptNo, waitedMs);
      const reason = failure.kind === 'http' ? `http ${failure.status}` : failure.kind;
      if (delayMs === null) {
        logger.warn({ path, params: query, attempts: attemptNo, reason }, 'upstream request failed; giving up');
        throw giveUp(failure, shownUrl, attemptNo, failure.status !== undefined);
      }
      const retry = { path, params: query, reason, delayMs, attempt: attemptNo };
      logger.warn(retry, 'upstream request failed; retrying');
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
