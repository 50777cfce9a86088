// The upstream client's shared types: what a request answers, its per-request options, the
// events it reports and what one attempt tells the retry loop. A leaf: it imports only types,
// so client.ts, send.ts and interpret-body.ts can all name them without importing each other.
import type { ApiErrorKind, PayloadError } from './errors.js';

export type ApiResult =
  /**
   * `text`: the JSON text `body` was parsed from (decoded, `,,` repaired, the key masked), which
   * pitwall keeps; `maskedValues`: occurrences of the key masked; `reserialized`: the key was
   * spelled in escapes and masked in the parsed body, so `text` is its JSON and a digest of the
   * bytes received (GetOptions.known) describes neither.
   */
  | {
      kind: 'ok';
      body: Record<string, unknown>;
      text: string;
      repaired: boolean;
      attempts: number;
      bytes: number;
      maskedValues: number;
      reserialized: boolean;
      /** Gives the body's bytes back to the process's budget; the client does it itself unless `holdBody`. Safe to call twice. */
      release: () => void;
    }
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
  /**
   * Keep an `ok` body's bytes in the process's byte budget until the caller calls its `release`
   * (once its rows are loaded), rather than until it is parsed.
   */
  holdBody?: boolean;
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

/** What one failed attempt tells the retry loop. */
export interface Failure {
  kind: ApiErrorKind;
  retryable: boolean;
  message: string;
  status?: number;
  retryAfterMs?: number | null;
  /** For `too-large`: which limit the body passed. */
  limit?: 'received' | 'decoded';
  /** Attempts of one request that may fail this way before it gives up, when fewer than the client's own attempts. */
  maxOfKind?: number;
  cause?: unknown;
}

/** An answer, a failure to retry or report, or a body that is JSON but not an envelope. */
export type AttemptOutcome = { result: ApiResult } | { failure: Failure } | { rejected: PayloadError };
