import { createServer, type AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { runCli, startCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/db.js';
import { useDatabase } from '../helpers/fixture.js';
import { listeningOn } from '../helpers/leaks.js';

const LISTENING = 'health, metrics and status page endpoint listening';

interface ListeningLine {
  listening: string;
  url: string;
}

/** A worker's environment in which no job fires and no catch-up runs: nothing is sent upstream. */
const quietWorker = (db: TestDatabase) => ({
  DATABASE_URL: db.url,
  MRP_API_BASE_URL: 'http://127.0.0.1:9',
  MRP_API_KEY: 'no-request-is-sent',
  PITWALL_CRON_LIVE: '0 0 1 1 *',
  PITWALL_CRON_SEASON: '0 0 1 1 *',
  PITWALL_CRON_FULL: '0 0 1 1 *',
  PITWALL_CATCH_UP: 'off',
});

/**
 * Starts `pitwall worker` on a free port with `args`, waits for its log line naming the endpoint,
 * reads what the kernel has listening on that port, then stops it with SIGTERM.
 */
async function workerEndpoint(db: TestDatabase, args: string[]) {
  const cli = startCli(['worker', '--http-port', '0', ...args], quietWorker(db));
  try {
    const line = await new Promise<ListeningLine>((resolve, reject) => {
      let text = '';
      cli.child.stderr?.on('data', (d: Buffer) => {
        text += d.toString();
        const found = text
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as ListeningLine & { msg: string })
          .find((l) => l.msg === LISTENING);
        if (found) resolve(found);
      });
      void cli.exited.then((r) => reject(new Error(`the worker exited (${r.code}) before listening: ${r.stderr}`)));
    });
    const port = Number(new URL(line.url).port);
    return { line, port, kernel: listeningOn(port), healthz: (await fetch(`${line.url}/healthz`)).status };
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
}

describe("the worker's HTTP endpoint's interface", () => {
  const db = useDatabase();

  it('is the loopback interface by default, and the log names it', async () => {
    const { line, port, kernel, healthz } = await workerEndpoint(db, []);
    expect(line.listening).toBe(`http://127.0.0.1:${port}`);
    expect(kernel).toEqual([`127.0.0.1:${port}`]);
    expect(healthz).toBe(200);
  });

  it('is every interface with --http-host 0.0.0.0, and the log names the wildcard address', async () => {
    const { line, port, kernel, healthz } = await workerEndpoint(db, ['--http-host', '0.0.0.0']);
    expect(line.listening).toBe(`http://0.0.0.0:${port}`);
    expect(line.url).toBe(`http://127.0.0.1:${port}`);
    expect(kernel).toEqual([`0.0.0.0:${port}`]);
    expect(healthz).toBe(200);
  });
});

describe("the worker's HTTP port already in use", () => {
  const db = useDatabase();

  it('is one line naming PITWALL_HTTP_PORT, with the exit status of a configuration error', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const r = await runCli(['worker'], { ...quietWorker(db), PITWALL_HTTP_PORT: String(port) });
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr).toBe(`pitwall: PITWALL_HTTP_PORT: port ${port} on 127.0.0.1 is already in use; choose another or stop what holds it\n`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
