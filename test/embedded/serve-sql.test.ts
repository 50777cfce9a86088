import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { PITWALL_BIN, runCli } from '../helpers/cli.js';

const PSQL = '/usr/bin/psql';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `pitwall serve-sql` as a real process, resolved once it prints its banner. */
function serve(env: Record<string, string>, port: number): Promise<{ child: ChildProcess; banner: string }> {
  const child = spawn(process.execPath, [PITWALL_BIN, 'serve-sql', '--port', String(port)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('stop with Ctrl-C')) resolve({ child, banner: out });
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`serve-sql exited ${code}: ${err}`)));
  });
}

describe('pitwall serve-sql', () => {
  let sim: RunningSimulator;
  let dir: string;
  let port: number;
  let server: { child: ChildProcess; banner: string };
  beforeAll(async () => {
    sim = await startSimulator({ scale: 'tiny', seed: 17 });
    dir = mkdtempSync(join(tmpdir(), 'pitwall-serve-'));
    const env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    expect((await runCli(['sync'], env)).code).toBe(0);
    port = await freePort();
    server = await serve({ PITWALL_DATA_DIR: dir }, port);
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers psql, and says how to connect', async () => {
    expect(server.banner).toContain(`psql "postgres://postgres@127.0.0.1:${port}/postgres"`);
    const { stdout } = await promisify(execFile)(PSQL, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-At', '-c', 'SELECT count(*) FROM analytics.current_standings WHERE position = 1'], {
      env: { PATH: process.env.PATH ?? '', PGCONNECT_TIMEOUT: '10' },
    });
    expect(Number(stdout.trim())).toBe(sim.world.truth().point_classes.length);
  });

  it('answers two pg clients at once, reading but not writing', async () => {
    const clients = [0, 1].map(() => new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' }));
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const counts = await Promise.all(clients.map((c) => c.query('SELECT count(*)::int AS n FROM analytics.event_results WHERE driver_id > $1', [0])));
      expect(counts[0]!.rows[0].n).toBe(sim.world.truth().results.length);
      expect(counts[1]!.rows).toEqual(counts[0]!.rows);
      await expect(clients[0]!.query('DELETE FROM mrp.results')).rejects.toMatchObject({ code: '25006' });
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('holds the warehouse while it serves, and lets go of it when stopped', async () => {
    const busy = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`serve-sql (pid ${server.child.pid}`);
    expect(busy.stderr).toContain(`127.0.0.1:${port}`);
    const exited = new Promise((resolve) => server.child.on('exit', resolve));
    server.child.kill('SIGINT');
    expect(await exited).toBe(0);
    const after = await runCli(['sql', '--csv', 'SELECT 1 AS one'], { PITWALL_DATA_DIR: dir });
    expect(after.stdout).toBe('one\n1\n');
  });
});
