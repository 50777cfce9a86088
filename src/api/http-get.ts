import http from 'node:http';
import https from 'node:https';

import { readBody, type BodyLimits } from './read-body.js';

/**
 * What the client reads of a response. fetch's Response has all of it, so a fetch can stand in
 * for httpGet (the tests wrap one to record or spoil what the simulator serves).
 */
export interface TransportResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Frees the connection without reading the body (an error page); a fetch's Response has it. */
  readonly body?: { cancel(): Promise<void> } | null;
}

/**
 * One GET: the URL, its timeout or cancellation, its request headers, and what its body may cost
 * (enforced while it is read by httpGet; a stand-in fetch reads it whole, and the client checks
 * its size after).
 */
export type Transport = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string>; limits?: BodyLimits },
) => Promise<TransportResponse>;

/** Without limits from the caller: none (tests of the transport itself). */
const UNLIMITED: BodyLimits = { maxBytes: Number.POSITIVE_INFINITY, maxDecodedBytes: Number.POSITIVE_INFINITY };

/**
 * Idle kept-alive connections are closed after this long, before a server's own idle timeout
 * (commonly 5 s and up) can close one just as a request is sent on it.
 */
const IDLE_SOCKET_MS = 4_000;

// Per scheme, its GET and its kept-alive connections, reused across requests (an idle one does
// not keep the process alive).
const SCHEMES: Readonly<Record<string, { get: typeof http.get; agent: http.Agent }>> = {
  'http:': { get: http.get, agent: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }) },
  'https:': { get: https.get, agent: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }) },
};

/**
 * A GET over node:http or node:https with kept-alive connections. It replaced fetch as the
 * client's transport: for the same 2,000 requests to the simulator, fetch (undici behind the
 * WHATWG streams) took 0.9-1.0 s of CPU and this 0.4 s. Errors are the sockets' own
 * (ECONNREFUSED, ENOTFOUND, certificate codes, ECONNRESET), which the client classifies.
 */
export const httpGet: Transport = (url, { signal, headers, limits = UNLIMITED }) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const scheme = SCHEMES[target.protocol];
    if (!scheme) {
      reject(new Error(`pitwall speaks http and https, not ${target.protocol}`));
      return;
    }
    const req = scheme.get(target, { agent: scheme.agent, signal, headers: { ...headers, 'accept-encoding': 'gzip, deflate' } }, (res) => {
      const status = res.statusCode ?? 0;
      // Read from the start, so that a connection lost before the caller asks for the body is
      // its rejection, never an unhandled 'error' event; a caller that never asks (an error page)
      // must not leave that rejection unhandled either. Read whole, an error page frees its
      // connection for the next request, so there is no body to cancel.
      const body = readBody(res, limits);
      body.catch(() => undefined);
      resolve({
        status,
        ok: status >= 200 && status < 300,
        headers: {
          get: (name) => {
            const value = res.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
          },
        },
        arrayBuffer: () => body,
      });
    });
    // Kept for the request's whole life: an error after the response began must not go unhandled.
    req.on('error', reject);
  });
