import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { loadConfig } from '../src/config.js';
import { openWarehouse } from '../src/db/open-warehouse.js';
import { openEmbeddedServer } from '../src/embedded/server.js';
import { createSilentLogger } from '../src/log.js';
import type { Scale } from '../src/simulator/world/types.js';
import { warehouseTempDir } from '../test/helpers/temp-dir.js';

import { startSimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { nodeOptionsEnv, withPitwall, type Runtime } from './lib/pitwall-runtime.js';
import { processTreePssBytes } from './lib/process-tree.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { runSyncProcess } from './lib/sync-process.js';
import { median, ratio } from './lib/timing.js';

export interface EmbeddedFigures {
  /** The world of the side-by-side wall-time comparison. */
  scale: Scale;
  /** `pitwall sync` on the embedded warehouse, start and stop of its server included (median). */
  wallMs: number;
  /** The same sync into a database on the PostgreSQL server (median). */
  serverWallMs: number;
  ratio: number;
  runs: number;
  /** The world of the memory figures. */
  memoryScale: Scale;
  /** Peak RSS of the pitwall process syncing `memoryScale` into the embedded warehouse. */
  peakRssMb: number;
  /** Peak memory of the embedded server beside it (postmaster and backends, proportional set size). */
  serverRssMb: number;
  memoryWallMs: number;
  /** How the memory sync ran: as the production image runs it (`dist`), or from the sources (`tsx`). */
  runtime: Runtime;
  nodeOptions: string;
  /** The embedded server's start: cold (initdb, then start) and warm (an existing cluster). */
  startMs: { cold: number; warm: number };
}

/** A migrated embedded warehouse whose server is stopped, as a user's directory is between runs. */
async function preparedDir(label: string): Promise<string> {
  const dir = warehouseTempDir(`pitwall-bench-${label}`);
  const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'bench' });
  await warehouse.close();
  return dir;
}

async function startTimes(): Promise<{ cold: number; warm: number }> {
  const dir = warehouseTempDir('pitwall-bench-start');
  try {
    const cold = await openEmbeddedServer({ dir, purpose: 'bench' });
    await cold.close();
    const warm = await openEmbeddedServer({ dir, purpose: 'bench' });
    await warm.close();
    return { cold: cold.startMs, warm: warm.startMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function serverMemory(dir: string): () => number | null {
  return () => {
    const pidFile = join(dir, 'postgres', 'postmaster.pid');
    if (!existsSync(pidFile)) return null;
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) ? processTreePssBytes(pid) : null;
  };
}

async function embeddedSync(command: string[], env: Record<string, string>, sampleServer = false) {
  const dir = await preparedDir('embedded');
  try {
    return await runSyncProcess(command, { ...env, PITWALL_DATA_DIR: dir }, sampleServer ? serverMemory(dir) : undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function serverSync(server: string, command: string[], env: Record<string, string>) {
  const db = await createBenchDatabase(server, 'embedded_cmp', 1);
  try {
    return await runSyncProcess(command, { ...env, DATABASE_URL: db.url });
  } finally {
    await db.drop();
  }
}

/**
 * The embedded warehouse against a PostgreSQL server, side by side in one run: the same
 * `pitwall sync` command, the same simulator process, alternating which goes first so that drift
 * in the machine's load falls on both. Then the embedded sync of a larger world for memory, and
 * the server's start times.
 */
export async function benchEmbedded(
  server: string,
  opts: { scale: Scale; memoryScale: Scale; runs: number; concurrency: number; command: string[]; runtime: Runtime },
): Promise<EmbeddedFigures> {
  const sim = await startSimulatorProcess(opts.scale, BENCH_SEED, 0);
  const env = { MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_CONCURRENCY: String(opts.concurrency) };
  const embedded: number[] = [];
  const onServer: number[] = [];
  try {
    for (let i = 0; i < opts.runs; i++) {
      const pair = i % 2 === 0 ? ['embedded', 'server'] : ['server', 'embedded'];
      for (const which of pair) {
        if (which === 'embedded') embedded.push((await embeddedSync(opts.command, env)).wallMs);
        else onServer.push((await serverSync(server, opts.command, env)).wallMs);
      }
    }
  } finally {
    await sim.stop();
  }
  // Memory as the memory section measures it on the server: the production image's build and
  // NODE_OPTIONS in the full run.
  const big = await startSimulatorProcess(opts.memoryScale, BENCH_SEED, 0);
  let memory;
  try {
    memory = await withPitwall(opts.runtime, async ({ command, nodeOptions }) => {
      const env2 = { ...env, MRP_API_BASE_URL: big.url, MRP_API_KEY: big.key, ...nodeOptionsEnv(nodeOptions) };
      return { ...(await embeddedSync(command(['sync', '--json']), env2, true)), nodeOptions };
    });
  } finally {
    await big.stop();
  }
  const wallMs = median(embedded);
  const serverWallMs = median(onServer);
  return {
    scale: opts.scale,
    wallMs,
    serverWallMs,
    ratio: ratio(wallMs, serverWallMs),
    runs: opts.runs,
    memoryScale: opts.memoryScale,
    peakRssMb: memory.peakRssMb,
    serverRssMb: memory.otherPeakMb,
    memoryWallMs: memory.wallMs,
    runtime: opts.runtime,
    nodeOptions: memory.nodeOptions,
    startMs: await startTimes(),
  };
}
