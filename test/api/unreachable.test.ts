import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { networkCauseOf, shownBaseUrl, unreachableMessage } from '../../src/api/unreachable.js';
import { createSilentLogger } from '../../src/log.js';
import { freePort } from '../helpers/ports.js';

/** The failure a real client request to `baseUrl` ends with (one attempt, no retries). */
async function failureAt(baseUrl: string, timeoutMs = 5_000): Promise<unknown> {
  const api = createApiClient({ baseUrl, apiKey: 'k-secret', timeoutMs, maxAttempts: 1, maxRetryWaitMs: 0, maxRps: 0, logger: createSilentLogger() });
  return api.get('/v2/schedules/', {}).then(
    () => new Error('answered'),
    (err: unknown) => err,
  );
}

describe('why an upstream gave no HTTP answer', () => {
  let plain: Server;
  let silent: Server;
  beforeAll(async () => {
    plain = createServer((_req, res) => res.writeHead(503).end());
    silent = createServer(() => undefined);
    await Promise.all([plain, silent].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  });
  afterAll(async () => {
    for (const s of [plain, silent]) s.closeAllConnections();
    await Promise.all([plain, silent].map((s) => new Promise((resolve) => s.close(resolve))));
  });
  const portOf = (s: Server) => (s.address() as AddressInfo).port;

  it('a closed port is a refused connection', async () => {
    expect(networkCauseOf(await failureAt(`http://127.0.0.1:${await freePort()}`))).toBe('refused');
  });

  it('TLS spoken to a plain HTTP server is a TLS failure', async () => {
    expect(networkCauseOf(await failureAt(`https://127.0.0.1:${portOf(plain)}`))).toBe('tls');
  });

  it('a server that never answers is a timeout', async () => {
    expect(networkCauseOf(await failureAt(`http://127.0.0.1:${portOf(silent)}`, 200))).toBe('timeout');
  });

  it('an HTTP answer, even an error status, is no network cause', async () => {
    expect(networkCauseOf(await failureAt(`http://127.0.0.1:${portOf(plain)}`))).toBeNull();
  });

  it('a DNS failure is told by its code, through the cause chain undici builds', () => {
    const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND upstream.invalid'), { code: 'ENOTFOUND' });
    const err = new ApiError('GET x failed: fetch failed', { kind: 'network', retryable: true, url: 'x', cause: new TypeError('fetch failed', { cause: lookup }) });
    expect(networkCauseOf(err)).toBe('dns');
  });

  it('names the variable and the host, never the key, a query or credentials', () => {
    expect(shownBaseUrl('http://user:pw@api.example:8080/base/?key=k-secret')).toBe('http://api.example:8080/base');
    expect(unreachableMessage('http://127.0.0.1:9', 'refused')).toBe(
      'the upstream at MRP_API_BASE_URL (http://127.0.0.1:9) could not be reached: connection refused; check the URL and the network',
    );
  });
});
