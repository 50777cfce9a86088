/**
 * The named errors of the upstream layer (and of config, which reports through the same habit).
 * Every message and field is built from key-free text: URLs here come from `buildUrl` without a
 * key, and causes pass through `redactError` in the client before they are attached.
 */

import { EXIT, PitwallError } from '../errors.js';

/**
 * `http`: a status pitwall does not take (a redirect included); `network`: no answer; `timeout`:
 * no headers in time; `slow-body`: the headers came but the body was still arriving at the
 * deadline; `short-body`: the connection closed before the body's end; `too-large`: the body
 * passed a size limit; `decode`: its Content-Encoding was broken; `charset`: its Content-Type
 * names a charset pitwall cannot decode; `body`: not JSON.
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'slow-body' | 'short-body' | 'too-large' | 'decode' | 'charset' | 'body';

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  retryable: boolean;
  /** The request URL without the key. */
  url: string;
  status?: number;
  /** Attempts made before giving up; set when the error ends a request. */
  attempts?: number;
  /** For `too-large`: which limit the body passed, as received or after decoding. */
  limit?: 'received' | 'decoded';
  cause?: unknown;
}

/** A request to the upstream failed: an HTTP status, a network fault, a timeout or a bad body. */
export class ApiError extends PitwallError {
  override readonly name = 'ApiError';
  readonly code = 'api';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
  readonly kind: ApiErrorKind;
  readonly retryable: boolean;
  readonly url: string;
  readonly status: number | undefined;
  readonly attempts: number | undefined;
  readonly limit: 'received' | 'decoded' | undefined;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, { cause: details.cause });
    this.kind = details.kind;
    this.retryable = details.retryable;
    this.url = details.url;
    this.status = details.status;
    this.attempts = details.attempts;
    this.limit = details.limit;
  }
}

/** Longest body excerpt kept on a PayloadError, in bytes of UTF-8. */
export const SNIPPET_MAX_BYTES = 2048;

const ELLIPSIS = '…';

/** `text` cut to at most `SNIPPET_MAX_BYTES` of UTF-8, ending in `…` when cut. */
export function snippetOf(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= SNIPPET_MAX_BYTES) return text;
  let end = SNIPPET_MAX_BYTES - Buffer.byteLength(ELLIPSIS);
  // Back up to the start of a character (continuation bytes are 10xxxxxx), never splitting one.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8') + ELLIPSIS;
}

export interface PayloadErrorDetails {
  /** The start of the offending body; bounded by `snippetOf`. */
  snippet: string;
  url?: string;
  /** Validation issues when the body parsed but is not an envelope. */
  issues?: readonly unknown[];
  cause?: unknown;
}

/** A body that is not JSON even after repair, or JSON that is not a v2 envelope. */
export class PayloadError extends PitwallError {
  override readonly name = 'PayloadError';
  readonly code = 'payload';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
  readonly snippet: string;
  readonly url: string | undefined;
  readonly issues: readonly unknown[] | undefined;

  constructor(message: string, details: PayloadErrorDetails) {
    super(message, { cause: details.cause });
    this.snippet = snippetOf(details.snippet);
    this.url = details.url;
    this.issues = details.issues;
  }
}

/** Thrown without a request once too many requests in a row have failed after all retries. */
export class UpstreamDownError extends PitwallError {
  override readonly name = 'UpstreamDownError';
  readonly code = 'upstream-down';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
  readonly consecutiveFailures: number;

  constructor(consecutiveFailures: number, options: { cause?: unknown } = {}) {
    super(
      `upstream considered down: ${consecutiveFailures} consecutive requests failed after retries`,
      { cause: options.cause },
    );
    this.consecutiveFailures = consecutiveFailures;
  }
}

export interface ConfigIssue {
  /** The environment variable (or `--flag`) that holds the bad value. */
  variable: string;
  message: string;
}

/** One or more configuration values are missing or invalid; secrets in them are masked. */
export class ConfigError extends PitwallError {
  override readonly name = 'ConfigError';
  readonly code = 'config';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map((i) => `${i.variable}: ${i.message}`).join('\n'));
    this.issues = issues;
  }
}
