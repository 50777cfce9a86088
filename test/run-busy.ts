import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run test:busy [-- vitest arguments]`: `vitest run` with every core kept busy by other work
 * for as long as it runs, as on a shared CI runner. The suite must pass this way as well as alone:
 * no test may bound elapsed time by a guess at the machine's speed (docs/testing.md). One busy
 * loop per core, at the tests' own priority (lowering either would hide what a shared runner does).
 *
 * Run as `node bin/run-ts.js test/run-busy.ts [vitest arguments]`.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

/**
 * A loop that burns one core until its parent is gone. It looks every ten million turns (a few
 * milliseconds): killed with this script, even by SIGKILL, it is orphaned and ends by itself.
 */
const BUSY_LOOP = 'const parent = process.ppid; for (let i = 0; ; i++) if (i % 1e7 === 0 && process.ppid !== parent) process.exit(0);';

function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', BUSY_LOOP], { stdio: 'ignore' }));
}

const loops = busyLoops(availableParallelism());
const stopLoops = () => {
  for (const loop of loops) loop.kill('SIGKILL');
};
process.stderr.write(`test:busy: ${loops.length} busy loops beside vitest, one per core\n`);
const vitest = spawn(process.execPath, [VITEST, 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
// Ctrl-C reaches vitest through the terminal's process group; this script only waits for it.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => vitest.kill('SIGTERM'));
vitest.on('exit', (code, signal) => {
  stopLoops();
  process.exitCode = code ?? (signal ? 1 : 0);
});
