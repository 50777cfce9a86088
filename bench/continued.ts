import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { createWorld } from '../src/simulator/world/index.js';
import type { Scale } from '../src/simulator/world/types.js';

import { ROOT, startSimulatorProcess, type SimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { minimumRequests } from './lib/min-requests.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { runSyncProcess } from './lib/sync-process.js';

/** One full stopped and continued: where, how, and what the two parts asked for in all. */
export interface ContinuedFigures {
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

export interface ContinuedCase {
  scale: Scale;
  stop: 'SIGTERM' | 'SIGKILL';
  at: number;
  target: number;
}

const bin = join(ROOT, 'bin/pitwall.js');

/** Requests the simulator has answered since its last reset. */
async function simulatorTotal(sim: SimulatorProcess, reset = false): Promise<number> {
  const { total } = (await (await fetch(`${sim.url}/__simulator/requests`)).json()) as { total: number };
  if (reset) await fetch(`${sim.url}/__simulator/requests/reset`, { method: 'POST' });
  return total;
}

/**
 * A full sync of a world into an empty warehouse, stopped (SIGTERM, or SIGKILL) once it has sent
 * `at` of the minimum's requests, then `pitwall sync` again, which continues it: the two parts'
 * requests over the minimum (docs/reliability.md, "A stopped run is continued"). Both parts are
 * real processes against the simulator in a process of its own.
 */
export async function benchContinued(server: string, cases: readonly ContinuedCase[], opts: { concurrency: number; latencyMs: number }): Promise<ContinuedFigures[]> {
  const figures: ContinuedFigures[] = [];
  for (const c of cases) {
    const minRequests = minimumRequests(createWorld({ seed: BENCH_SEED, scale: c.scale }).truth()).total;
    const [db, sim] = await Promise.all([createBenchDatabase(server, 'continued', 1), startSimulatorProcess(c.scale, BENCH_SEED, opts.latencyMs)]);
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
      const first = spawn(process.execPath, [bin, 'sync', '--json'], { cwd: ROOT, env, stdio: 'ignore' });
      const exited = new Promise<void>((resolve) => first.once('exit', () => resolve()));
      let running = true;
      void exited.then(() => (running = false));
      while (running && (await simulatorTotal(sim)) < c.at * minRequests) await new Promise((resolve) => setTimeout(resolve, 20));
      first.kill(c.stop);
      await exited;
      const firstRequests = await simulatorTotal(sim, true);
      const { summary } = await runSyncProcess([bin, 'sync', '--json'], env);
      const secondRequests = await simulatorTotal(sim);
      const continued = summary.status === 'succeeded' && (summary as { continues?: unknown }).continues !== undefined;
      figures.push({ ...c, minRequests, firstRequests, secondRequests, ratio: Math.round((1000 * (firstRequests + secondRequests)) / minRequests) / 1000, continued });
    } finally {
      await Promise.all([sim.stop(), db.drop()]);
    }
  }
  return figures;
}
