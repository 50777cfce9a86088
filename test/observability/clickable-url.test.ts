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

  const start = (host: string) =>
    startObservabilityServer({ port: 0, host, health: () => Promise.resolve({ ok: true }), registry: new Registry(), logger: createSilentLogger() });

  it('answers there when listening on every interface, while naming the wildcard address it bound', async () => {
    const server = await start('0.0.0.0');
    try {
      const port = new URL(server.url).port;
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect(server.bound).toBe(`http://0.0.0.0:${port}`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('names an IPv6 address it bound in brackets', async () => {
    const server = await start('::1');
    try {
      expect(server.bound).toBe(server.url);
      expect(server.bound).toMatch(/^http:\/\/\[::1\]:\d+$/);
    } finally {
      await server.close();
    }
  });
});
