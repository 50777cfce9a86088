import { ApiError, UpstreamDownError } from './errors.js';

/** Why a request got no HTTP answer at all, from the socket's error code. */
export type NetworkCause = 'refused' | 'dns' | 'tls' | 'timeout' | 'unroutable' | 'reset' | 'network';

const CODES: ReadonlyArray<[NetworkCause, (code: string) => boolean]> = [
  ['refused', (c) => c === 'ECONNREFUSED'],
  ['dns', (c) => c === 'ENOTFOUND' || c.startsWith('EAI_')],
  // OpenSSL's verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, ...), node's
  // ERR_TLS_* and ERR_SSL_*, and EPROTO (a TLS hello answered by something that is not TLS).
  ['tls', (c) => c === 'EPROTO' || /^(ERR_TLS_|ERR_SSL_)|CERT|SIGNATURE|SELF_SIGNED/.test(c)],
  ['timeout', (c) => c === 'ETIMEDOUT' || c === 'UND_ERR_CONNECT_TIMEOUT' || c === 'UND_ERR_HEADERS_TIMEOUT'],
  ['unroutable', (c) => c === 'EHOSTUNREACH' || c === 'ENETUNREACH'],
  ['reset', (c) => c === 'ECONNRESET' || c === 'EPIPE' || c === 'UND_ERR_SOCKET' || c === 'UND_ERR_CLOSED'],
];

const WORDS: Record<NetworkCause, string> = {
  refused: 'connection refused',
  dns: 'the host name could not be resolved (DNS)',
  tls: 'the TLS connection failed (certificate or protocol)',
  timeout: 'no answer before the timeout (PITWALL_REQUEST_TIMEOUT_MS)',
  unroutable: 'no route to the host',
  reset: 'the connection was closed before any answer',
  network: 'the connection failed before any answer',
};

/** The first socket code in an error's chain: undici wraps it as `cause`, "localhost" as an AggregateError of ::1 and 127.0.0.1. */
function socketCodes(err: unknown, depth = 0): string[] {
  if (err === null || typeof err !== 'object' || depth > 5) return [];
  const code = (err as { code?: unknown }).code;
  const own = typeof code === 'string' ? [code] : [];
  const inner = err instanceof AggregateError ? err.errors.flatMap((e: unknown) => socketCodes(e, depth + 1)) : [];
  const cause = 'cause' in err ? socketCodes(err.cause, depth + 1) : [];
  return [...own, ...inner, ...cause];
}

/**
 * Why a failed request got no HTTP answer (refused, DNS, TLS, timeout, ...), classified by the
 * error codes in its cause chain; null when an HTTP answer did arrive (a status, a bad body) or
 * the failure is not the client's (an abort). An UpstreamDownError is judged by the failure
 * that made the client give up.
 */
export function networkCauseOf(err: unknown): NetworkCause | null {
  if (err instanceof UpstreamDownError) return networkCauseOf(err.cause);
  // Every other kind had an HTTP answer: the upstream was reached.
  if (!(err instanceof ApiError) || (err.kind !== 'network' && err.kind !== 'timeout')) return null;
  const codes = socketCodes(err.cause);
  for (const [cause, matches] of CODES) if (codes.some(matches)) return cause;
  return err.kind === 'timeout' ? 'timeout' : 'network';
}

/** The upstream's address as a person may see it: scheme, host and port, and any path; never a query or credentials. */
export function shownBaseUrl(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(not a URL)';
  }
}

/** The one line a run or probe ends with when no root request got any HTTP answer. Names the variable; never the key. */
export function unreachableMessage(baseUrl: string, cause: NetworkCause): string {
  return `the upstream at MRP_API_BASE_URL (${shownBaseUrl(baseUrl)}) could not be reached: ${WORDS[cause]}; check the URL and the network`;
}
