import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { PITWALL_BIN, runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

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
  let env: Record<string, string>;
  let server: { child: ChildProcess; banner: string };
  const reader = () =>
    new pg.Client({ host: '127.0.0.1', port, user: 'pitwall_reader', password: readFileSync(join(dir, 'reader-password'), 'utf8').trim(), database: 'postgres' });
  beforeAll(async () => {
    sim = await startSimulator({ scale: 'tiny', seed: 17 });
    dir = warehouseTempDir('pitwall-serve');
    env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    expect((await runCli(['sync'], env)).code).toBe(0);
    port = await freePort();
    server = await serve({ PITWALL_DATA_DIR: dir }, port);
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await sim?.close();
    // A server left by a failed test is stopped through the same path the CLI uses.
    if (existsSync(join(dir, 'postgres', 'postmaster.pid'))) await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
  });

  it('says how to log in as the read-only role, and its command line logs in, with the password from its file', async () => {
    expect(server.banner).toContain(`on 127.0.0.1:${port}, read-only for role pitwall_reader`);
    const passwordFile = join(dir, 'reader-password');
    expect(server.banner).toContain(`PGPASSWORD="$(cat ${passwordFile})" psql "postgres://pitwall_reader@127.0.0.1:${port}/postgres"`);
    expect(server.banner).not.toContain(readFileSync(join(dir, 'password'), 'utf8').trim());
    // The banner's own URL and password file, through the protocol: psql is not everywhere, and a
    // distribution's psql may be of another major version than the server.
    const url = new URL(/psql "([^"]+)"/.exec(server.banner)?.[1] ?? 'missing:');
    const client = new pg.Client({
      host: url.hostname,
      port: Number(url.port),
      user: url.username,
      database: url.pathname.slice(1),
      password: readFileSync(passwordFile, 'utf8').trim(),
      connectionTimeoutMillis: 10_000,
    });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM analytics.current_standings WHERE position = 1');
      expect(rows[0]!.n).toBe(sim.world.truth().point_classes.length);
    } finally {
      await client.end();
    }
  });

  it('answers many readers at once, who may read mrp, analytics and pitwall\'s run bookkeeping but write nothing and read no payload pitwall keeps', async () => {
    const clients = [0, 1, 2, 3].map(reader);
    await Promise.all(clients.map((c) => c.connect()));
    try {
      const counts = await Promise.all(clients.map((c) => c.query('SELECT count(*)::int AS n FROM analytics.event_results WHERE driver_id > $1', [0])));
      for (const c of counts) expect(c.rows[0].n).toBe(sim.world.truth().results.length);
      await expect(clients[0]!.query('DELETE FROM mrp.results')).rejects.toMatchObject({ code: '42501' });
      await expect(clients[1]!.query('SELECT * FROM pitwall.rejects')).rejects.toMatchObject({ code: '42501' });
      await expect(clients[2]!.query('DELETE FROM pitwall.sync_runs')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
  });

  it('lets a sync write while a reader holds a session open', async () => {
    const bi = reader();
    await bi.connect();
    try {
      sim.world.advanceDays(10);
      const r = await runCli(['sync'], env);
      expect(r.code).toBe(0);
      const { rows } = await bi.query('SELECT count(*)::int AS n FROM mrp.events');
      expect(rows[0].n).toBe(sim.world.truth().events.length);
    } finally {
      await bi.end();
    }
  });

  it('keeps the server up while it runs, and lets it stop once it is stopped', async () => {
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(true);
    const exited = new Promise((resolve) => server.child.on('exit', resolve));
    server.child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'postgres', 'postmaster.pid'))).toBe(false);
    const after = await runCli(['sql', '--csv', 'SELECT 1 AS one'], { PITWALL_DATA_DIR: dir });
    expect(after.stdout).toBe('one\n1\n');
  });
});
