import { once } from 'node:events';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll } from 'vitest';

/**
 * Serves `server` on a free loopback port for the describe block it is called in, closing it (and
 * every connection a test left open) after the block. `base()` is its URL once listening.
 */
export function useHttpServer(server: http.Server): { base: () => string } {
  let base = '';
  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { base: () => base };
}
