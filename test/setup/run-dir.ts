import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { TestProject } from 'vitest/node';

import { sweepRunDir } from './run-watchdog.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The first global setup: one directory for everything this run puts in the temporary directory
 * (TMPDIR points at it before the other setups and the test files' processes start, so their
 * servers' clusters and every mkdtemp land in it), and a watchdog that removes it, stopping the
 * servers in it, once this process is gone: a run stopped with Ctrl-C or killed never reaches a
 * teardown, and a server pg_ctl started outlives it (test/setup/run-watchdog.ts). The teardown
 * sweeps the same way, so a run that ends, passed or failed, leaves nothing either.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-test-run-'));
  // Embedded servers run as another user when the tests run as root: it must pass through.
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  // Vitest's transform cache was made in the former TMPDIR before any setup ran; a stopped run
  // leaves it too, so the watchdog removes it. The teardown does not: vitest removes it on close.
  const args = [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/setup/run-watchdog.ts'), String(process.pid), dir, project.tmpDir];
  const watchdog = spawn(process.execPath, args, {
    cwd: ROOT,
    // Its own session: the Ctrl-C that stops the run must not stop it.
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  return async () => {
    await sweepRunDir(dir);
    if (watchdog.exitCode === null) watchdog.kill('SIGTERM');
  };
}
