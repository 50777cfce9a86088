import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Scale } from '../src/simulator/world/types.js';

import { ROOT, startSimulatorProcess } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
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
  runtime: 'dist' | 'tsx';
  /** NODE_OPTIONS the sync ran with: the production image's (its Dockerfile's), for `dist`. */
  nodeOptions: string;
  concurrency: number;
  /** The same sync by plain `node`, without the image's NODE_OPTIONS (when it sets any). */
  withoutNodeOptions?: { peakRssMb: number; wallMs: number };
}

/**
 * Where the benchmark compiles the CLI to: under the git-ignored .pitwall/, beside node_modules.
 * The compiled code finds the migrations at `../migrations` from its own directory, as dist/ does
 * in the image, so a link to them sits beside it (the embedded warehouse migrates on open).
 */
const BENCH_BUILD = join(ROOT, '.pitwall/bench-build');
const BENCH_DIST = join(BENCH_BUILD, 'dist');

/** Removes the compiled CLI. */
export function removeBenchBuild(): void {
  rmSync(BENCH_BUILD, { recursive: true, force: true });
}

/**
 * The NODE_OPTIONS the production image sets (`ENV ... NODE_OPTIONS=...` in the Dockerfile), so
 * that the compiled worker is measured with the V8 settings it is deployed with; '' when none.
 */
export function imageNodeOptions(): string {
  const dockerfile = join(ROOT, 'Dockerfile');
  if (!existsSync(dockerfile)) return '';
  const m = /\bNODE_OPTIONS=(?:"([^"]*)"|([^\s\\]+))/.exec(readFileSync(dockerfile, 'utf8'));
  return m ? (m[1] ?? m[2] ?? '') : '';
}

/**
 * The command line that runs `pitwall sync --json` (see pitwallCommand); compiles afresh for `dist`.
 */
export function syncCommand(runtime: 'dist' | 'tsx'): string[] {
  if (runtime === 'dist') buildBenchCli();
  return pitwallCommand(runtime, ['sync', '--json']);
}

/**
 * Compiles the sources with tsconfig.build.json as the production image has them (not into dist/
 * itself, which would change what bin/pitwall.js runs for everyone else); removeBenchBuild removes it.
 */
export function buildBenchCli(): void {
  removeBenchBuild();
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BENCH_DIST], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  symlinkSync(join(ROOT, 'migrations'), join(BENCH_BUILD, 'migrations'));
}

/**
 * The node arguments that run `pitwall <args>`: with `dist`, the CLI buildBenchCli compiled, loaded
 * as bin/pitwall.js loads dist/ in the production image; with `tsx`, bin/pitwall.js as a fresh
 * clone runs it.
 */
export function pitwallCommand(runtime: 'dist' | 'tsx', args: readonly string[]): string[] {
  if (runtime === 'tsx') return [join(ROOT, 'bin/pitwall.js'), ...args];
  const cli = pathToFileURL(join(BENCH_DIST, 'cli.js')).href;
  return ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(cli)}); await main(${JSON.stringify(args)});`];
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
  opts: { scale: Scale; concurrency: number; runtime: 'dist' | 'tsx' },
): Promise<MemoryFigures> {
  const command = syncCommand(opts.runtime);
  try {
    const nodeOptions = opts.runtime === 'dist' ? imageNodeOptions() : '';
    const figures = await syncOnce(server, command, opts, nodeOptions);
    if (!nodeOptions) return figures;
    const plain = await syncOnce(server, command, opts, '');
    return { ...figures, withoutNodeOptions: { peakRssMb: plain.peakRssMb, wallMs: plain.wallMs } };
  } finally {
    removeBenchBuild();
  }
}

async function syncOnce(
  server: string,
  command: string[],
  opts: { scale: Scale; concurrency: number; runtime: 'dist' | 'tsx' },
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
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
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
