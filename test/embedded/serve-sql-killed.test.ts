import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { otherLiveClients, processStartTime } from '../../src/embedded/server-clients.js';
import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';

import { readerClient, serverRunning, serving } from './serving.js';

describe('a serve-sql killed with SIGKILL', () => {
  const dir = copyEmbeddedTemplate();
  afterAll(async () => {
    if (serverRunning(dir)) await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves an entry the next pitwall process removes; the server stops only once no client is connected', async () => {
    const cli = await serving({ PITWALL_DATA_DIR: dir }, 120_000);
    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(readdirSync(join(dir, 'clients'))).toEqual([String(cli.child.pid)]);
    const bi = readerClient(dir, Number(readFileSync(join(dir, 'port'), 'utf8')));
    await bi.connect();
    try {
      expect((await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir })).code).toBe(0);
      expect(readdirSync(join(dir, 'clients'))).toEqual([]);
      expect(serverRunning(dir)).toBe(true);
      expect((await bi.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await bi.end();
    }
    expect((await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir })).code).toBe(0);
    expect(serverRunning(dir)).toBe(false);
  });
});

describe("the embedded server's owner entries", () => {
  it('do not count a live pid that started at another time than the process that wrote the entry (a reused pid)', () => {
    const dir = copyEmbeddedTemplate();
    try {
      const clients = join(dir, 'clients');
      mkdirSync(clients, { recursive: true });
      const live = process.ppid;
      writeFileSync(join(clients, String(live)), JSON.stringify({ purpose: 'worker', startTime: '1' }));
      expect(otherLiveClients(dir)).toEqual([]);
      expect(readdirSync(clients)).toEqual([]);
      writeFileSync(join(clients, String(live)), JSON.stringify({ purpose: 'worker', startTime: processStartTime(live) }));
      expect(otherLiveClients(dir)).toEqual([live]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
