import type { Pool } from 'pg';
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
 * kills, so there is always something being written; each run continues the killed one before
 * it. Then one run is let finish, and one more, which starts afresh: the warehouse must equal a
 * clean run's, and every killed run must read `abandoned`, none `running`.
 */

const KILLS = process.env.PITWALL_SOAK ? 100 : 20;
const SEED = Number(process.env.PITWALL_CRASH_SEED ?? 20240611);
/**
 * Runs tried before KILLS kills have landed: a continued run may end before its kill, and more do
 * on a busy machine, where a kill's few extra milliseconds last longer (one took 60 runs for 19).
 */
const TRIES = 6 * KILLS;
/** Each run's bound: a hang guard, which fails the test (a busy 2-core machine took 28 s for a run). */
const RUN_HANG_MS = 240_000;
/**
 * The test's bound: a hang guard too, where each hung step ends at its own bound first, saying
 * which. A busy 2-core machine took 11 minutes over 20 kills; alone, a few.
 */
const TEST_MS = 60 * 60_000;

/** No backend holds an advisory lock in `pool`'s database: the killed runs' job locks are let go. */
async function locksLetGo(pool: Pool): Promise<void> {
  const held = async () =>
    (
      await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    ).rows[0]!.n;
  while ((await held()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
}

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
    // A killed run is continued by the next, which is shorter: some end before their kill lands
    // (and the one after them starts afresh). Runs go on until KILLS kills have landed.
    for (let i = 0; killed < KILLS && i < TRIES; i++) {
      // Something new to write in every run: a renamed driver touches results, points, lineups...
      const d = drivers[Math.floor(random() * drivers.length)]!;
      sim.world.renameDriver(d.driver_id, { lastName: `Crash${i}` });
      const afterRequests = 1 + Math.floor(random() * 120);
      const extraMs = Math.floor(random() * 40);
      const base = sim.requests().total;
      const started = performance.now();
      const cli = startCli(['sync', '--json'], env, RUN_HANG_MS);
      const reached = await until(() => sim.requests().total - base >= afterRequests, cli);
      if (reached) {
        await new Promise((resolve) => setTimeout(resolve, extraMs));
        cli.child.kill('SIGKILL');
      }
      const result = await cli.exited;
      timings.push(Math.round(performance.now() - started));
      // Only this test's kill counts (the hang guard's is a failure, named by the check below), and
      // only one that landed while the run's row was open: a short continued run may have closed
      // its row and be on its way out when the signal comes.
      const { rows } = await db.pool.query<{ status: string }>('SELECT status FROM pitwall.sync_runs WHERE pid = $1', [cli.child.pid]);
      const signalled = reached && result.signal === 'SIGKILL';
      if (signalled && rows[0]?.status === 'running') killed += 1;
      else if (!signalled) expect([0, 3], `run ${i} ended on its own: ${result.stderr.slice(0, 500)}`).toContain(result.code);
    }
    expect(killed).toBe(KILLS);

    // One run let finish, once the last killed run's backend is gone: until then it holds the job's
    // lock, and a run would be skipped (exit 3).
    await locksLetGo(db.pool);
    const final = await runCli(['sync', '--json'], env, RUN_HANG_MS);
    expect(final.code, final.stderr.slice(0, 500)).toBe(0);
    expect(JSON.parse(final.stdout).status).toBe('succeeded');
    // When it continued a killed run, the scopes the parts before it finished hold the upstream as
    // those parts saw it, before the renames since. The run after it starts afresh and asks for all.
    const fresh = await runCli(['sync', '--json'], env, RUN_HANG_MS);
    expect(fresh.code, fresh.stderr.slice(0, 500)).toBe(0);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ status: 'succeeded', scopes: { carried: 0 } });

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
  }, TEST_MS);
});
