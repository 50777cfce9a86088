import type { Scale } from '../src/simulator/world/types.js';

import { startSimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { nodeOptionsEnv, withPitwall, type Runtime } from './lib/pitwall-runtime.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { runSyncProcess } from './lib/sync-process.js';

export interface MemoryFigures {
  scale: Scale;
  resultRows: number;
  requests: number;
  status: string;
  peakRssMb: number;
  wallMs: number;
  /** `dist`: the compiled JavaScript, as the production image runs it; `tsx`: the sources compiled on load. */
  runtime: Runtime;
  /** NODE_OPTIONS the sync ran with: the production image's (its Dockerfile's), for `dist`. */
  nodeOptions: string;
  concurrency: number;
  /** The same sync by plain `node`, without the image's NODE_OPTIONS (when it sets any). */
  withoutNodeOptions?: { peakRssMb: number; wallMs: number };
}

/**
 * Peak resident memory of `pitwall sync` doing a full sync of a world into an empty database,
 * with the simulator in another process so that only the sync's own memory is counted. The
 * peak is the kernel's high-water mark for the process (VmHWM), read until the process exits.
 * With `dist`, the sync runs with the production image's NODE_OPTIONS and, when it has any,
 * once more without them, so the table shows what they are worth.
 */
export async function benchMemory(
  server: string,
  opts: { scale: Scale; concurrency: number; runtime: Runtime },
): Promise<MemoryFigures> {
  return withPitwall(opts.runtime, async ({ command, nodeOptions }) => {
    const sync = command(['sync', '--json']);
    const figures = await syncOnce(server, sync, opts, nodeOptions);
    if (!nodeOptions) return figures;
    const plain = await syncOnce(server, sync, opts, '');
    return { ...figures, withoutNodeOptions: { peakRssMb: plain.peakRssMb, wallMs: plain.wallMs } };
  });
}

async function syncOnce(
  server: string,
  command: string[],
  opts: { scale: Scale; concurrency: number; runtime: Runtime },
  nodeOptions: string,
): Promise<MemoryFigures> {
  const [db, sim] = await Promise.all([createBenchDatabase(server, 'memory', 1), startSimulatorProcess(opts.scale, BENCH_SEED, 0)]);
  try {
    const { summary, wallMs, peakRssMb } = await runSyncProcess(command, {
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      DATABASE_URL: db.url,
      PITWALL_MAX_RPS: '0',
      PITWALL_CONCURRENCY: String(opts.concurrency),
      ...nodeOptionsEnv(nodeOptions),
    });
    return {
      scale: opts.scale,
      resultRows: summary.tables?.results?.inserted ?? 0,
      requests: summary.requests ?? 0,
      status: summary.status ?? 'unknown',
      peakRssMb,
      wallMs,
      // A checkout's bin/pitwall.js runs the sources through tsx, whether or not a dist/ is built.
      runtime: opts.runtime,
      nodeOptions,
      concurrency: opts.concurrency,
    };
  } finally {
    await Promise.all([sim.stop(), db.drop()]);
  }
}
