import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Registry } from 'prom-client';

import { ConfigError } from '../api/errors.js';
import type { Logger } from '../log.js';

import { bearerMatches } from './bearer-token.js';
import type { StatusPageData } from './status-page/data.js';
import { renderStatusPage } from './status-page/html.js';

/** What `/healthz` answers: `ok` decides 200 or 503; the rest says why. */
export interface HealthReport {
  ok: boolean;
  /** Why the worker is unhealthy; absent when it is healthy. */
  reason?: string;
  [detail: string]: unknown;
}

export interface ObservabilityServerOptions {
  port: number;
  /** Listen address (PITWALL_HTTP_HOST): `127.0.0.1` keeps it to this machine, `0.0.0.0` or `::` opens it to every interface. */
  host: string;
  health: () => Promise<HealthReport>;
  registry: Registry;
  logger: Logger;
  /** The data of `/` and `/status.json`; without it those answer 404. */
  status?: () => Promise<StatusPageData>;
  /** When set, `/`, `/status.json` and `/metrics` need `Authorization: Bearer <token>`; `/healthz` stays open. */
  token?: string;
}

export interface ObservabilityServer {
  /** Where a person or a test on this machine can reach it, e.g. `http://127.0.0.1:9464`. */
  url: string;
  /** The address really bound, e.g. `http://0.0.0.0:9464` or `http://[::1]:9464`: what the log names. */
  bound: string;
  /** Stops listening and ends open connections. Safe to call twice. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

// The page is self-contained: nothing to load (its icon is an empty data: URL, so the browser
// asks for no /favicon.ico), nothing to run, no framing by another site.
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/** `http://address:port`, an IPv6 address in brackets. */
function httpUrl(address: string, port: number): string {
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/**
 * The address a person can open: a wildcard listen address (`::`, `0.0.0.0`) is no place to
 * browse to, and the loopback address reaches a server listening on every interface.
 */
export function clickableUrl(address: string, port: number): string {
  if (address === '::' || address === '0.0.0.0') return `http://127.0.0.1:${port}`;
  return httpUrl(address, port);
}

/**
 * Why the endpoint could not listen, as the one line of a configuration error naming the setting
 * to change; classified by the socket's code. Anything else is no setting's fault: it is kept.
 */
export function listenError(err: unknown, port: number, host: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `port ${port} on ${host}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError([{ variable: 'PITWALL_HTTP_PORT', message: `${where} is already in use; choose another or stop what holds it` }]);
    case 'EACCES':
      return new ConfigError([{ variable: 'PITWALL_HTTP_PORT', message: `${where} needs privileges this process does not have; choose a port above 1023` }]);
    case 'EADDRNOTAVAIL':
      return new ConfigError([{ variable: 'PITWALL_HTTP_HOST', message: `${host} is not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses` }]);
    default:
      return err;
  }
}

/** The worker's HTTP endpoint (PITWALL_HTTP_PORT): `/healthz`, `/metrics`, and the status page at `/` and `/status.json`. */
export async function startObservabilityServer(options: ObservabilityServerOptions): Promise<ObservabilityServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://pitwall.invalid').pathname;
    const answer = async () => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n');
      if (path === '/healthz') {
        const report = await options.health();
        return send(res, report.ok ? 200 : 503, 'application/json', `${JSON.stringify(report)}\n`);
      }
      const guarded = path === '/metrics' || (options.status !== undefined && (path === '/' || path === '/status.json'));
      if (guarded && options.token !== undefined && !bearerMatches(req.headers.authorization, options.token)) {
        return send(res, 401, 'text/plain', 'a bearer token is required (PITWALL_HTTP_TOKEN)\n', { 'www-authenticate': 'Bearer realm="pitwall"' });
      }
      if (path === '/metrics') return send(res, 200, options.registry.contentType, await options.registry.metrics());
      if (options.status && path === '/status.json') return send(res, 200, 'application/json', `${JSON.stringify(await options.status())}\n`, PAGE_HEADERS);
      if (options.status && path === '/') return send(res, 200, 'text/html; charset=utf-8', renderStatusPage(await options.status()), PAGE_HEADERS);
      return send(res, 404, 'text/plain', `not found; try /healthz, /metrics${options.status ? ', / or /status.json' : ''}\n`);
    };
    answer().catch((err: unknown) => {
      options.logger.warn({ path, err: err instanceof Error ? err.message : String(err) }, 'observability request failed');
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error\n');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(listenError(err, options.port, options.host));
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: clickableUrl(address, port),
    bound: httpUrl(address, port),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's keep-alive connection would otherwise hold close() open.
        server.closeAllConnections();
      })),
  };
}
