import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import { createWorld } from '../src/simulator/world/index.js';
import type { Scale } from '../src/simulator/world/types.js';

import { benchRestartedWorker, type RestartedFigures } from './continued-restart.js';
import { ROOT, startSimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { minimumRequests } from './lib/min-requests.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { simulatorTotal, untilRequests } from './lib/simulator-requests.js';
import { runSyncProcess } from './lib/sync-process.js';

/** One full stopped and continued: where, how, and what the two parts asked for in all. */
export interface StoppedFigures {
  scale: Scale;
  stop: 'SIGTERM' | 'SIGKILL';
  /** The share of the minimum's requests the first part had sent when the signal was sent. */
  at: number;
  minRequests: number;
  /** Requests of the stopped part, then of the continuation, as the simulator counted them. */
  firstRequests: number;
  secondRequests: number;
  /** Both parts' requests over the minimum. */
  ratio: number;
  /** Whether the second part said it continued the first, and ended succeeded. */
  continued: boolean;
  /** The target for the ratio. */
  target: number;
}

/** A full stopped by a signal to its `pitwall sync` (then synced again), or cut by a restart of PostgreSQL under a worker (bench/continued-restart.ts). */
export type ContinuedFigures = StoppedFigures | RestartedFigures;

export interface ContinuedCase {
  scale: Scale;
  stop: ContinuedFigures['stop'];
  at: number;
  target: number;
}

const bin = join(ROOT, 'bin/pitwall.js');

/**
 * A full sync of a world into an empty warehouse, stopped (SIGTERM, or SIGKILL) once it has sent
 * `at` of the minimum's requests, then `pitwall sync` again, which continues it: the two parts'
 * requests over the minimum (docs/reliability.md, "A stopped run is continued"). Both parts are
 * real processes against the simulator in a process of its own. A `restart` case is a worker's
 * full cut by a PostgreSQL restart instead (bench/continued-restart.ts).
 */
export async function benchContinued(server: string, cases: readonly ContinuedCase[], opts: { concurrency: number; latencyMs: number }): Promise<ContinuedFigures[]> {
  const figures: ContinuedFigures[] = [];
  for (const c of cases) {
    const minRequests = minimumRequests(createWorld({ seed: BENCH_SEED, scale: c.scale }).truth()).total;
    if (c.stop === 'restart') {
      figures.push(await benchRestartedWorker(c, minRequests, opts));
      continue;
    }
    const [db, sim] = await Promise.all([createBenchDatabase(server, 'continued', 1), startSimulatorProcess(c.scale, BENCH_SEED, opts.latencyMs)]);
    let first: ChildProcess | undefined;
    try {
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        MRP_API_BASE_URL: sim.url,
        MRP_API_KEY: sim.key,
        DATABASE_URL: db.url,
        PITWALL_MAX_RPS: '0',
        PITWALL_CONCURRENCY: String(opts.concurrency),
        PITWALL_LOG_LEVEL: 'warn',
      };
      const part = (first = spawn(process.execPath, [bin, 'sync', '--json'], { cwd: ROOT, env, stdio: 'ignore' }));
      const exited = new Promise<void>((resolve) => part.once('exit', () => resolve()));
      let running = true;
      void exited.then(() => (running = false));
      await untilRequests(sim, c.at * minRequests, () => running);
      part.kill(c.stop);
      await exited;
      const firstRequests = await simulatorTotal(sim, true);
      const { summary } = await runSyncProcess([bin, 'sync', '--json'], env);
      const secondRequests = await simulatorTotal(sim);
      const continued = summary.status === 'succeeded' && (summary as { continues?: unknown }).continues !== undefined;
      figures.push({ ...c, stop: c.stop, minRequests, firstRequests, secondRequests, ratio: Math.round((1000 * (firstRequests + secondRequests)) / minRequests) / 1000, continued });
    } finally {
      // A first part still running (the bench failed while it ran) is not left behind.
      if (first && first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
      await Promise.all([sim.stop(), db.drop()]);
    }
  }
  return figures;
}
