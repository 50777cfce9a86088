import { redact, redactError } from '../secrets.js';

import { attemptSignal } from './attempt-signal.js';
import { BodyPace, SLOW_BODY_BYTES_PER_S } from './body-pace.js';
import type { BudgetHold } from './byte-budget.js';
import { charsetOf } from './charset.js';
import type { Transport } from './http-get.js';
import { BodyDecodeError, BodyTooLargeError, ShortBodyError, type BodyLimits } from './read-body.js';
import { parseRetryAfterMs } from './retry-after.js';
import type { Failure } from './types.js';

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

/**
 * Attempts of one request that may end at the deadline, with no status line yet or with the body
 * still arriving: a server that answers that slowly once will most likely do it again, and five
 * attempts of it cost five timeouts. Counted per kind; other failures between them do not count.
 */
const SLOW_ANSWER_ATTEMPTS = 2;

/** True for a connection-level fault, looking through the `cause` chain (a fetch wraps the socket's error). */
function isNetworkFault(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 4) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return NETWORK_MESSAGE.test(err.message) || isNetworkFault(err.cause, depth + 1);
}

/** One attempt's setting: how its URL is shown, its timeout, the caller's signal, and what to hide. */
export interface SendOptions {
  /** The URL without the key: the only form any message holds. */
  shownUrl: string;
  /** Covers the headers and the body. */
  timeoutMs: number;
  callerSignal: AbortSignal | undefined;
  secrets: string[];
  /** Milliseconds since the epoch, for a Retry-After date. */
  now: () => number;
  /** The body's size limits; its decoded bytes are held in `hold` (the process's byte budget). */
  limits: Omit<BodyLimits, 'onDecoded'>;
  hold: BudgetHold;
  /** Called once the attempt is over, with its HTTP status (null when none arrived). */
  done: (status: number | null, durationMs: number) => void;
}

/** The origin a redirect points to (never its path or query, which could carry anything), or a word when it has none. */
function redirectTarget(location: string | null, from: string): string {
  if (!location) return 'no Location';
  try {
    return new URL(location, from).origin;
  } catch {
    return 'an unreadable Location';
  }
}

/**
 * One GET and its body's bytes with the charset its Content-Type names, or the failure, classified for the retry loop: an HTTP status
 * (retryable or not, with its Retry-After), a timeout before the headers or a body still arriving
 * at it, a body over its limits or with a broken encoding, or a network fault. The caller's abort
 * ends it at once and is thrown, never reported as a failure.
 */
export async function sendRequest(
  transport: Transport,
  url: string,
  { shownUrl, timeoutMs, callerSignal, secrets, now, limits, hold, done }: SendOptions,
): Promise<{ bytes: Uint8Array; charset: string | null } | { failure: Failure }> {
  const pace = new BodyPace(now);
  const attempt = attemptSignal(callerSignal, timeoutMs, () => pace.graceMs());
  const { signal } = attempt;
  const started = performance.now();
  let status: number | null = null;
  const watched: BodyLimits = {
    ...limits,
    onDecoded: (n) => hold.grow(n, signal),
    onReceived: (n, ended) => pace.receivedBytes(n, ended),
    onReaderPaused: (paused) => pace.readerPaused(paused),
  };
  try {
    const res = await transport(url, { signal, headers: { accept: 'application/json' }, limits: watched });
    status = res.status;
    pace.headersCame();
    if (!res.ok) {
      // Free the connection without reading an error page we have no use for.
      await res.body?.cancel().catch(() => undefined);
      return { failure: statusFailure(res.status, res.headers, shownUrl, url, now) };
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    // A stand-in transport reads the body whole, without the limits: judged here instead.
    if (bytes.byteLength > limits.maxDecodedBytes) throw new BodyTooLargeError('decoded', limits.maxDecodedBytes);
    return { bytes, charset: charsetOf(res.headers.get('content-type')) };
  } catch (err) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    return { failure: thrownFailure(err, { shownUrl, timeoutMs, secrets, timedOut: attempt.timedOut, headersCame: status !== null }) };
  } finally {
    attempt.end();
    done(status, performance.now() - started);
  }
}

/** A status pitwall does not take. A redirect is never followed: the key would go with it, to wherever it points. */
function statusFailure(status: number, headers: { get(name: string): string | null }, shownUrl: string, url: string, now: () => number): Failure {
  if (status >= 300 && status < 400) {
    const target = redirectTarget(headers.get('location'), url);
    const message = `GET ${shownUrl} failed: HTTP ${status}, a redirect to ${target}, which pitwall does not follow (the key would go with it); if the API has moved, set MRP_API_BASE_URL`;
    return { kind: 'http', retryable: false, status, retryAfterMs: null, message };
  }
  const retryable = RETRYABLE_STATUS.has(status);
  const retryAfterMs = parseRetryAfterMs(headers.get('retry-after'), new Date(now()));
  return { kind: 'http', retryable, status, retryAfterMs, message: `GET ${shownUrl} failed: HTTP ${status}` };
}

function thrownFailure(
  err: unknown,
  { shownUrl, timeoutMs, secrets, timedOut, headersCame }: { shownUrl: string; timeoutMs: number; secrets: string[]; timedOut: boolean; headersCame: boolean },
): Failure {
  // The same body again would pass the same limit: not retried.
  if (err instanceof BodyTooLargeError) return { kind: 'too-large', retryable: false, limit: err.measure, message: `GET ${shownUrl} failed: ${err.message}` };
  if (err instanceof BodyDecodeError) return { kind: 'decode', retryable: false, message: `GET ${shownUrl} failed: ${err.message}` };
  const cause = redactError(err, secrets);
  if (timedOut && headersCame) {
    const message = `GET ${shownUrl} failed: the body was still arriving after ${timeoutMs} ms, slower than ${SLOW_BODY_BYTES_PER_S / 1024} KiB/s (PITWALL_REQUEST_TIMEOUT_MS)`;
    return { kind: 'slow-body', retryable: true, maxOfKind: SLOW_ANSWER_ATTEMPTS, message, cause };
  }
  if (timedOut) return { kind: 'timeout', retryable: true, maxOfKind: SLOW_ANSWER_ATTEMPTS, message: `GET ${shownUrl} timed out after ${timeoutMs} ms`, cause };
  // Cut off on the way, as a reset is: the next attempt usually gets the whole body.
  if (err instanceof ShortBodyError) return { kind: 'short-body', retryable: true, message: `GET ${shownUrl} failed: ${err.message}`, cause };
  const detail = redact(err instanceof Error ? err.message : String(err), secrets);
  return { kind: 'network', retryable: isNetworkFault(err), message: `GET ${shownUrl} failed: ${detail}`, cause };
}
