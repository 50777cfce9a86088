import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { TestProject } from 'vitest/node';

import { sweepRunDir } from './run-watchdog.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Room a run may fill in memory: its clusters, a packed install and its node_modules, with margin. */
const MEMORY_DIR_ROOM = 2 * 1024 ** 3;

/**
 * Where the run's directory goes: TMPDIR when it is set; otherwise /dev/shm, a memory file system
 * on Linux, when it has the room; otherwise the system's temporary directory. The run copies a
 * 40 MB cluster for each embedded warehouse a test opens, and its servers commit with fsync: on
 * a 2-core VM's disk a copy cost 0.2-0.4 s of system time, in memory 0.04 s, and `npm test` took
 * 280 s instead of 311 s (docs/testing.md).
 */
function runDirParent(): string {
  if (process.env.TMPDIR) return process.env.TMPDIR;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= MEMORY_DIR_ROOM) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows).
  }
  return tmpdir();
}

/**
 * Vitest's transform caches (`<tmpdir>/<random>/ssr`): each project has one, named from the
 * temporary directory as it was when vitest started, before any setup ran, so they are not in the
 * run's directory. The setup is handed the root project, whose cache the suite's own projects
 * never use; theirs are the ones a stopped run left behind.
 */
function transformCaches(project: TestProject): string[] {
  const { vitest } = project;
  return [...new Set([vitest.getRootProject(), ...vitest.projects].map((p) => p.tmpDir))];
}

/**
 * The first global setup: one directory for everything this run puts in the temporary directory
 * (TMPDIR points at it before the other setups and the test files' processes start, so their
 * servers' clusters and every mkdtemp land in it), and a watchdog that removes it, stopping the
 * servers in it, once this process is gone: a run stopped with Ctrl-C or killed never reaches a
 * teardown, and a server pg_ctl started outlives it (test/setup/run-watchdog.ts). The teardown
 * sweeps the same way, so a run that ends, passed or failed, leaves nothing either.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(runDirParent(), 'pitwall-test-run-'));
  // Embedded servers run as another user when the tests run as root: it must pass through.
  chmodSync(dir, 0o755);
  process.env.TMPDIR = dir;
  const caches = transformCaches(project);
  const args = [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/setup/run-watchdog.ts'), String(process.pid), dir, ...caches];
  const watchdog = spawn(process.execPath, args, {
    cwd: ROOT,
    // Its own session: the Ctrl-C that stops the run must not stop it.
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  return async () => {
    await sweepRunDir(dir);
    // Vitest removes them on close too, but only if its close is not cut short (teardownTimeout).
    for (const cache of caches) rmSync(cache, { recursive: true, force: true });
    if (watchdog.exitCode === null) watchdog.kill('SIGTERM');
  };
}
