import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { stopEmbeddedServer } from '../../src/embedded/server.js';
import { createSilentLogger } from '../../src/log.js';
import { runCli, startCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { useSimulator } from '../helpers/fixture.js';

import { checksumDifferences, truthChecksums, warehouseChecksums } from './helpers/checksums.js';
import { seeded, until } from './helpers/process.js';

/**
 * kill -9 of a real `pitwall sync` on the embedded warehouse, at seeded moments: some while the
 * process starts the server (stopped beforehand, so it has to), the rest while requests are in
 * flight and responses load. The server outlives the killed process; the next run joins it, or
 * starts it, and recovers. Then one run is let finish, which continues the killed ones, and one
 * more, which starts afresh: the warehouse must equal the truth.
 */

const KILLS = 10;
const SEED = Number(process.env.PITWALL_CRASH_SEED ?? 20261123);

const postmasterPid = (dir: string) => (existsSync(join(dir, 'postgres', 'postmaster.pid')) ? Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) : null);

const sim = useSimulator({ scale: 'tiny', seed: 29, faults: { latencyMs: 5 } });
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  dir = copyEmbeddedTemplate();
  env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_LOG_LEVEL: 'warn' };
});
afterAll(async () => {
  if (dir) {
    await stopEmbeddedServer(dir).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('a sync on the embedded warehouse killed with SIGKILL at seeded moments', () => {
  it(`recovers and ends equal to the truth after ${KILLS} kills`, async () => {
    const random = seeded(SEED);
    const truth = (await (await fetch(`${sim.url}/__simulator/truth`)).json()) as { drivers: Array<{ driver_id: number }> };
    let killed = 0;
    const moments: string[] = [];
    for (let i = 0; i < KILLS; i++) {
      const d = truth.drivers[Math.floor(random() * truth.drivers.length)]!;
      sim.world.renameDriver(d.driver_id, { lastName: `Crash${i}` });
      const duringStart = i % 3 === 0;
      if (duringStart) await stopEmbeddedServer(dir);
      const base = sim.requests().total;
      const cli = startCli(['sync', '--json'], env);
      if (duringStart) {
        const ms = 50 + Math.floor(random() * 600);
        await new Promise((resolve) => setTimeout(resolve, ms));
        moments.push(`${ms}ms`);
      } else {
        const afterRequests = 1 + Math.floor(random() * 100);
        await until(() => sim.requests().total - base >= afterRequests, cli);
        moments.push(`${afterRequests}req`);
      }
      cli.child.kill('SIGKILL');
      const result = await cli.exited;
      if (result.signal === 'SIGKILL') killed += 1;
      else expect([0, 3], `run ${i} ended on its own: ${result.stderr.slice(0, 500)}`).toContain(result.code);
    }
    expect(killed).toBeGreaterThanOrEqual(KILLS - 2);

    let final = await runCli(['sync', '--json'], env);
    for (let tries = 0; final.code === 3 && tries < 10; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      final = await runCli(['sync', '--json'], env);
    }
    expect(final.code, final.stderr.slice(0, 800)).toBe(0);
    expect(JSON.parse(final.stdout).status).toBe('succeeded');
    // It continued the killed runs: the scopes the parts before it finished hold the upstream as
    // those parts saw it, before the renames since (as one long run would). The run after it
    // starts afresh and asks for all.
    const fresh = await runCli(['sync', '--json'], env);
    expect(fresh.code, fresh.stderr.slice(0, 800)).toBe(0);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ status: 'succeeded', scopes: { carried: 0 } });

    const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'test' });
    try {
      expect(checksumDifferences(await warehouseChecksums(warehouse.pool), await truthChecksums(sim.url))).toEqual({});
      const { rows } = await warehouse.pool.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM pitwall.sync_runs GROUP BY status');
      const byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
      expect(byStatus.running ?? 0).toBe(0);
    } finally {
      await warehouse.close();
    }
    // The last process gone, nothing else attached: the server is stopped, not left behind.
    expect(postmasterPid(dir)).toBeNull();
    console.info(`embedded crash proof: ${killed} of ${KILLS} runs killed at ${moments.join(' ')}`);
  });
});

describe('a second pitwall process on the same directory during a sync', () => {
  it('joins the one server, neither starting another nor waiting for the sync to end', async () => {
    // Slow enough that the sync is still walking when the second process is up and done, even
    // on a loaded machine where starting a process takes seconds: the already-synced tiny world
    // needs only a few dozen requests.
    sim.setFaults({ latencyMs: 2_000 });
    sim.world.advanceDays(30);
    try {
      const first = startCli(['sync', '--job', 'full', '--json'], env);
      const base = sim.requests().total;
      await until(() => sim.requests().total - base >= 3, first);
      const server = postmasterPid(dir);
      expect(server).not.toBeNull();
      const [second, status] = await Promise.all([runCli(['sync', '--job', 'full'], env), runCli(['sql', '--csv', 'SELECT count(*) > 0 AS ok FROM pitwall.sync_runs'], env)]);
      expect(second.code, second.stderr).toBe(3);
      expect(status.stdout).toBe('ok\nt\n');
      expect(postmasterPid(dir)).toBe(server);
      // Neither waited for the sync to end: it is still going. Its remaining requests may go
      // quickly now: what it still must show is that it ends well.
      expect(first.child.exitCode).toBeNull();
      sim.setFaults({ latencyMs: 0 });
      expect((await first.exited).code).toBe(0);
    } finally {
      sim.setFaults({ latencyMs: 0 });
    }
  });
});
