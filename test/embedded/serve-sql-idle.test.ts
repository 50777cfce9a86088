import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { freePort } from '../helpers/ports.js';

import { readerClient, serverRunning, serving } from './serving.js';

// pg.Pool closes idle clients after 10 s (its idleTimeoutMillis default; src/db/pool.ts keeps
// it), serve-sql's only timeout: a serve-sql held up by its pool alone was gone long before
// this. Two and a half times that, and a connection of the reader's after it.
const POOL_IDLE_MS = 10_000;
const IDLE_MS = 2.5 * POOL_IDLE_MS;

describe('pitwall serve-sql left idle', () => {
  const dir = copyEmbeddedTemplate();
  afterAll(async () => {
    if (serverRunning(dir)) await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
  });

  it('still serves the reader after outliving its pool\'s idle timeout, and stops, with the server, on SIGTERM', async () => {
    const port = await freePort();
    const cli = await serving({ PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: String(port) }, IDLE_MS + 60_000);
    await sleep(IDLE_MS);
    expect(cli.child.exitCode).toBeNull();
    const reader = readerClient(dir, port);
    await reader.connect();
    const { rows } = await reader.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.events');
    await reader.end();
    expect(rows).toEqual([{ n: 0 }]);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
    expect(serverRunning(dir)).toBe(false);
    expect(readdirSync(join(dir, 'clients'))).toEqual([]);
  }, IDLE_MS + 90_000);
});
