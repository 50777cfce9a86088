import type { RunningSimulator } from '../../src/simulator/server.js';
import type { TestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/sync.js';

/** The configuration a worker gets in these tests, through loadConfig like a user's. */
export function workerConfig(db: Pick<TestDatabase, 'url'>, sim: RunningSimulator, env: Record<string, string> = {}) {
  return testConfig(db, sim, {
    // A started worker must not fire a job on its own mid-test: the default live schedule
    // (every 5 minutes of the wall clock) would take the job's lock and make a run the test
    // starts itself come back `skipped`. Tests of the schedules set their own.
    PITWALL_CRON_LIVE: '0 0 1 1 *',
    PITWALL_CRON_SEASON: '0 0 1 1 *',
    PITWALL_CRON_FULL: '0 0 1 1 *',
    // Nor catch up at start: tests of catch-up turn it on.
    PITWALL_CATCH_UP: 'off',
    ...env,
  });
}

/** The simulator's today at noon UTC: the clock a worker reads "today" and "this year" from. */
export const simulatorClock = (sim: RunningSimulator) => (): Date => new Date(`${sim.world.today()}T12:00:00Z`);

/** Requests the simulator received, by path and query, leaving out the admin routes. */
export function requestedPaths(sim: RunningSimulator): string[] {
  return Object.entries(sim.requests().byPath).flatMap(([path, n]) => Array.from({ length: n }, () => path)).sort();
}

/**
 * Settles once `worker` owns every source in `names`. start() returns after the first beat's
 * take, which a database that answers nothing for the lease's length (a stall of the server's
 * disk on a busy machine) leaves to the next beat: the ownership is waited for, not assumed.
 */
export async function untilOwned(worker: { owned(): string[] }, names: readonly string[]): Promise<void> {
  while (!names.every((n) => worker.owned().includes(n))) await new Promise((resolve) => setTimeout(resolve, 50));
}
