import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { clickableUrl, startObservabilityServer } from '../../src/observability/http-server.js';

describe('the address the endpoint logs', () => {
  it('is the loopback address for a wildcard listen address, the address itself otherwise', () => {
    expect(clickableUrl('::', 9464)).toBe('http://127.0.0.1:9464');
    expect(clickableUrl('0.0.0.0', 9464)).toBe('http://127.0.0.1:9464');
    expect(clickableUrl('127.0.0.1', 9464)).toBe('http://127.0.0.1:9464');
    expect(clickableUrl('::1', 9464)).toBe('http://[::1]:9464');
    expect(clickableUrl('192.0.2.7', 80)).toBe('http://192.0.2.7:80');
  });

  it('answers there when listening on every interface', async () => {
    const server = await startObservabilityServer({
      port: 0,
      health: () => Promise.resolve({ ok: true }),
      registry: new Registry(),
      logger: createSilentLogger(),
    });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
