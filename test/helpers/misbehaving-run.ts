import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));

/**
 * A vitest run of the files of test/setup/leaky/ (files that misbehave on purpose) that `name`
 * matches, with no database: what it printed and its exit code, for tests of the test machinery
 * itself. `config` is the run's configuration, one of that directory's.
 */
export async function runMisbehavingFile(name: string, config = 'vitest.config.ts'): Promise<{ code: number | undefined; output: string }> {
  return promisify(execFile)(process.execPath, [VITEST, 'run', '--config', `test/setup/leaky/${config}`, name], {
    cwd: ROOT,
    // The suite's TMPDIR (the run's directory), so whatever this run leaves is swept with it.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}) },
    // A hang guard: a busy machine takes most of a minute to start vitest.
    timeout: 240_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code, output: (err.stdout ?? '') + (err.stderr ?? '') }),
  );
}
