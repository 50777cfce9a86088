import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { ROOT } from './child.js';

/**
 * How a bench runs pitwall: `dist`, compiled as the production image has it and with the image's
 * NODE_OPTIONS; `tsx`, the sources through tsx, as a fresh clone runs bin/pitwall.js.
 */
export type Runtime = 'dist' | 'tsx';

export interface Pitwall {
  /** The node arguments that run `pitwall <args>`. */
  command(args: readonly string[]): string[];
  /** The NODE_OPTIONS to run it with: the image's for `dist` (when it sets any), else ''. */
  nodeOptions: string;
}

/**
 * Where the benchmark compiles the CLI to: under the git-ignored .pitwall/, beside node_modules.
 * The compiled code finds the migrations at `../migrations` from its own directory, as dist/ does
 * in the image, so a link to them sits beside it (the embedded warehouse migrates on open).
 */
const BENCH_BUILD = join(ROOT, '.pitwall/bench-build');
const BENCH_DIST = join(BENCH_BUILD, 'dist');

/**
 * `work` with pitwall ready to run as `runtime` says: for `dist`, the sources compiled with
 * tsconfig.build.json first (not into dist/ itself, which would change what bin/pitwall.js runs
 * for everyone else) and removed after.
 */
export async function withPitwall<T>(runtime: Runtime, work: (pitwall: Pitwall) => Promise<T>): Promise<T> {
  if (runtime === 'tsx') return work({ command: (args) => [join(ROOT, 'bin/pitwall.js'), ...args], nodeOptions: '' });
  rmSync(BENCH_BUILD, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', BENCH_DIST], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    symlinkSync(join(ROOT, 'migrations'), join(BENCH_BUILD, 'migrations'));
    const cli = pathToFileURL(join(BENCH_DIST, 'cli.js')).href;
    // Loaded as bin/pitwall.js loads dist/ in the production image.
    const command = (args: readonly string[]) => ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(cli)}); await main(${JSON.stringify(args)});`];
    return await work({ command, nodeOptions: imageNodeOptions() });
  } finally {
    rmSync(BENCH_BUILD, { recursive: true, force: true });
  }
}

/** The environment that gives a process `nodeOptions` (none when it is ''). */
export function nodeOptionsEnv(nodeOptions: string): { NODE_OPTIONS?: string } {
  return nodeOptions ? { NODE_OPTIONS: nodeOptions } : {};
}

/**
 * The NODE_OPTIONS the production image sets (`ENV ... NODE_OPTIONS=...` in the Dockerfile), so
 * that the compiled CLI is measured with the V8 settings it is deployed with; '' when none.
 */
function imageNodeOptions(): string {
  const dockerfile = join(ROOT, 'Dockerfile');
  if (!existsSync(dockerfile)) return '';
  const m = /\bNODE_OPTIONS=(?:"([^"]*)"|([^\s\\]+))/.exec(readFileSync(dockerfile, 'utf8'));
  return m ? (m[1] ?? m[2] ?? '') : '';
}
