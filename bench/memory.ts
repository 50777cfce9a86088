import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { Scale } from '../src/simulator/world/types.js';

import { peakRssBytes, ROOT, startSimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { BENCH_SEED } from './lib/result-rows.js';

export interface MemoryFigures {
  scale: Scale;
  resultRows: number;
  requests: number;
  status: string;
  peakRssMb: number;
  wallMs: number;
  /** `dist` when bin/pitwall.js ran the built JavaScript, `tsx` when it compiled the sources itself. */
  runtime: 'dist' | 'tsx';
  concurrency: number;
}

/**
 * Peak resident memory of `pitwall sync` (the real CLI, bin/pitwall.js) doing a full sync of a
 * world into an empty database, with the simulator in another process so that only the sync's
 * own memory is counted. The peak is the kernel's high-water mark for the process (VmHWM),
 * read until the process exits.
 */
export async function benchMemory(server: string, opts: { scale: Scale; concurrency: number }): Promise<MemoryFigures> {
  const [db, sim] = await Promise.all([createBenchDatabase(server, 'memory', 1), startSimulatorProcess(opts.scale, BENCH_SEED, 0)]);
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [join(ROOT, 'bin/pitwall.js'), 'sync', '--json'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        MRP_API_BASE_URL: sim.url,
        MRP_API_KEY: sim.key,
        DATABASE_URL: db.url,
        PITWALL_MAX_RPS: '0',
        PITWALL_CONCURRENCY: String(opts.concurrency),
        PITWALL_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    let peak = 0;
    const sample = () => {
      const hwm = child.pid === undefined ? null : peakRssBytes(child.pid);
      if (hwm !== null) peak = Math.max(peak, hwm);
    };
    const timer = setInterval(sample, 25);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      // 'exit' comes before the pipes close; the last sample is as late as /proc allows.
      child.once('exit', (c) => resolve(c));
    });
    clearInterval(timer);
    const wallMs = Math.round(performance.now() - started);
    const summary = JSON.parse(stdout || '{}') as { status?: string; requests?: number; tables?: { results?: { inserted?: number } } };
    if (code !== 0) throw new Error(`pitwall sync exited with ${code}: ${stdout.slice(0, 500)}`);
    return {
      scale: opts.scale,
      resultRows: summary.tables?.results?.inserted ?? 0,
      requests: summary.requests ?? 0,
      status: summary.status ?? 'unknown',
      peakRssMb: Math.round(peak / 1048576),
      wallMs,
      runtime: existsSync(join(ROOT, 'dist/cli.js')) ? 'dist' : 'tsx',
      concurrency: opts.concurrency,
    };
  } finally {
    await Promise.all([sim.stop(), db.drop()]);
  }
}
