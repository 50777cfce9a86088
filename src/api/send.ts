import { redact, redactError } from '../secrets.js';

import type { Transport } from './http-get.js';
import type { Failure } from './interpret-body.js';
import { parseRetryAfterMs } from './retry-after.js';

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
  /** Called once the attempt is over, with its HTTP status (null when none arrived). */
  done: (status: number | null, durationMs: number) => void;
}

/**
 * One GET and its body's bytes, or the failure, classified for the retry loop: an HTTP status
 * (retryable or not, with its Retry-After), a timeout, or a network fault. The caller's abort
 * ends it at once and is thrown, never reported as a failure.
 */
export async function sendRequest(
  transport: Transport,
  url: string,
  { shownUrl, timeoutMs, callerSignal, secrets, now, done }: SendOptions,
): Promise<{ bytes: Uint8Array } | { failure: Failure }> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
  const started = performance.now();
  let status: number | null = null;
  try {
    const res = await transport(url, { signal, headers: { accept: 'application/json' } });
    status = res.status;
    if (!res.ok) {
      // Free the connection without reading an error page we have no use for.
      await res.body?.cancel().catch(() => undefined);
      const retryable = RETRYABLE_STATUS.has(res.status);
      const retryAfterMs = parseRetryAfterMs(res.headers.get('retry-after'), new Date(now()));
      const message = `GET ${shownUrl} failed: HTTP ${res.status}`;
      return { failure: { kind: 'http', retryable, status: res.status, retryAfterMs, message } };
    }
    return { bytes: new Uint8Array(await res.arrayBuffer()) };
  } catch (err) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    const cause = redactError(err, secrets);
    if (timeout.aborted) {
      return { failure: { kind: 'timeout', retryable: true, message: `GET ${shownUrl} timed out after ${timeoutMs} ms`, cause } };
    }
    const detail = redact(err instanceof Error ? err.message : String(err), secrets);
    return { failure: { kind: 'network', retryable: isNetworkFault(err), message: `GET ${shownUrl} failed: ${detail}`, cause } };
  } finally {
    done(status, performance.now() - started);
  }
}
