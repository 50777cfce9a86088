import http from 'node:http';
import https from 'node:https';
import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

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

/** One GET: the URL, its timeout or cancellation, and its request headers. */
export type Transport = (url: string, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<TransportResponse>;

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

/** The body as sent, decompressed when the server compressed it (it is asked for gzip or deflate). */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body);
    case 'deflate':
      // "deflate" is meant to be zlib-wrapped, but some servers send it raw.
      try {
        return inflateSync(body);
      } catch {
        return inflateRawSync(body);
      }
    default:
      throw new Error(`the response's Content-Encoding ${JSON.stringify(encoding)} is not one pitwall asked for`);
  }
}

/** The whole body of `res`; a connection closed before its end is a reset, as a network fault. */
function readBody(res: http.IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }));
    });
    res.once('end', () => {
      try {
        const body = decoded(Buffer.concat(chunks), res.headers['content-encoding']);
        // The bytes' own ArrayBuffer when the body fills it, which every body above 4 KB does.
        resolve(body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? (body.buffer as ArrayBuffer) : new Uint8Array(body).buffer);
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * A GET over node:http or node:https with kept-alive connections. It replaced fetch as the
 * client's transport: for the same 2,000 requests to the simulator, fetch (undici behind the
 * WHATWG streams) took 0.9-1.0 s of CPU and this 0.4 s. Errors are the sockets' own
 * (ECONNREFUSED, ENOTFOUND, certificate codes, ECONNRESET), which the client classifies.
 */
export const httpGet: Transport = (url, { signal, headers }) =>
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
      const body = readBody(res);
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
