import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';

import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiClient, type ApiClientOptions } from '../../src/api/client.js';

const KEY = 'SECRET-KEY-123';

/** Routes by path; several answers quote the request URL back, key included, as proxies do. */
let server: Server;
let baseUrl: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/v2/missing/') res.writeHead(404).end(`not found: ${req.url}`);
    else if (path === '/v2/html/') res.writeHead(200).end(`<html>proxy error for ${req.url}</html>`);
    else if (path === '/v2/echo/') res.writeHead(200).end(JSON.stringify({ url: req.url }));
    else if (path === '/v2/reset/') req.socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function setup(overrides: Partial<ApiClientOptions> = {}) {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
  // No secrets configured on this logger: the client itself must never hand it the key.
  const logger = pino({ level: 'trace' }, sink);
  const client = createApiClient({
    baseUrl,
    apiKey: KEY,
    timeoutMs: 2000,
    maxAttempts: 2,
    maxRetryWaitMs: 1000,
    maxRps: 0,
    logger,
    consecutiveFailureLimit: 1,
    sleep: async () => undefined,
    ...overrides,
  });
  return { client, lines };
}

function expectKeyFree(err: unknown, lines: string[]): void {
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  for (const text of [String(e), e.stack ?? '', JSON.stringify(e), inspect(e, { depth: 10 }), lines.join('')]) {
    expect(text).not.toContain(KEY);
  }
}

describe('api client keeps the API key out of errors and logs', () => {
  it.each(['/v2/missing/', '/v2/html/', '/v2/echo/', '/v2/reset/'])('for %s', async (path) => {
    const { client, lines } = setup();
    const err = await client.get(path, { EventId: 2 }).catch((e: unknown) => e);
    expectKeyFree(err, lines);
    expect(String(err)).toContain(`${path}?EventId=2`);
    // The client is now "down"; that error must be clean too.
    expectKeyFree(await client.get(path, {}).catch((e: unknown) => e), lines);
  });

  it('when fetch itself quotes the URL (as undici does for a bad URL)', async () => {
    const fetch = (async (url: string | URL | Request) => {
      throw new TypeError(`Failed to parse URL from ${String(url)}`, { cause: new Error(`at ${String(url)}`) });
    }) as typeof globalThis.fetch;
    const { client, lines } = setup({ fetch });
    expectKeyFree(await client.get('/v2/x/', {}).catch((e: unknown) => e), lines);
  });

  it('when an attempt times out', async () => {
    const fetch = ((_url: string | URL | Request, init?: RequestInit) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
      })) as typeof globalThis.fetch;
    const { client, lines } = setup({ fetch, timeoutMs: 20 });
    const err = await client.get('/v2/slow/', {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'timeout' });
    expectKeyFree(err, lines);
  });
});
