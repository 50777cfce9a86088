import { beforeAll, describe, expect, it } from 'vitest';

import { runCli, startCli } from '../helpers/cli.js';
import { useDatabase, useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { fetchTruth } from '../helpers/warehouse.js';

import { checksumDifferences, truthChecksums, warehouseChecksums } from './helpers/checksums.js';
import { seeded, until } from './helpers/process.js';

/**
 * kill -9 of a real `pitwall sync` process, again and again, at seeded random moments: after a
 * random number of upstream requests plus a random few milliseconds, so kills land while
 * requests are in flight, while responses load, and between. The upstream changes between
 * kills, so there is always something being written. Then one run is let finish: the warehouse
 * must equal a clean run's, and every killed run must read `abandoned`, none `running`.
 */

const KILLS = process.env.PITWALL_SOAK ? 100 : 20;
const SEED = Number(process.env.PITWALL_CRASH_SEED ?? 20240611);

const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 23, faults: { latencyMs: 5 } });
const clean = useDatabase();
let env: Record<string, string>;
beforeAll(() => {
  env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_LOG_LEVEL: 'warn' };
});

describe('a sync killed with SIGKILL at random moments', () => {
  it(`loses nothing and duplicates nothing over ${KILLS} kills in a row`, async () => {
    const random = seeded(SEED);
    const truth = await fetchTruth(sim.url);
    const drivers = truth.drivers as Array<{ driver_id: number }>;
    let killed = 0;
    const timings: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      // Something new to write in every run: a renamed driver touches results, points, lineups...
      const d = drivers[Math.floor(random() * drivers.length)]!;
      sim.world.renameDriver(d.driver_id, { lastName: `Crash${i}` });
      const afterRequests = 1 + Math.floor(random() * 120);
      const extraMs = Math.floor(random() * 40);
      const base = sim.requests().total;
      const started = performance.now();
      const cli = startCli(['sync', '--json'], env, 30_000);
      const reached = await until(() => sim.requests().total - base >= afterRequests, cli);
      if (reached) {
        await new Promise((resolve) => setTimeout(resolve, extraMs));
        cli.child.kill('SIGKILL');
      }
      const result = await cli.exited;
      timings.push(Math.round(performance.now() - started));
      if (result.signal === 'SIGKILL') killed += 1;
      else expect([0, 3], `run ${i} ended on its own: ${result.stderr.slice(0, 500)}`).toContain(result.code);
    }
    expect(killed).toBeGreaterThanOrEqual(Math.floor(KILLS * 0.8));

    // One run let finish; a run that finds the last killed backend still holding the lock is skipped.
    let final = await runCli(['sync', '--json'], env);
    for (let tries = 0; final.code === 3 && tries < 10; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      final = await runCli(['sync', '--json'], env);
    }
    expect(final.code, final.stderr.slice(0, 500)).toBe(0);
    expect(JSON.parse(final.stdout).status).toBe('succeeded');

    // Equal to a clean, uninterrupted run against the same upstream, and to the ground truth.
    expect((await syncOnce(clean, sim)).status).toBe('succeeded');
    const [afterCrashes, cleanRun, want] = await Promise.all([warehouseChecksums(db.pool), warehouseChecksums(clean.pool), truthChecksums(sim.url)]);
    expect(checksumDifferences(afterCrashes, cleanRun)).toEqual({});
    expect(checksumDifferences(afterCrashes, want)).toEqual({});

    const runs = await db.pool.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM pitwall.sync_runs GROUP BY status');
    const byStatus = Object.fromEntries(runs.rows.map((r) => [r.status, r.n]));
    expect(byStatus.running ?? 0).toBe(0);
    expect(byStatus.abandoned).toBe(killed);
    console.info(`crash proof: ${killed} of ${KILLS} runs killed; ms from start to exit: ${timings.join(' ')}`);
  }, 240_000);
});
