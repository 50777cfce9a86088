import { configDefaults, defineConfig } from 'vitest/config';

import { SlowFirstSequencer } from './test/setup/slow-first.js';

/** The browser tests need a browser, so they have a command of their own (vitest.browser.config.ts). */
export const BROWSER_TESTS = 'test/**/*.browser.test.ts';

/**
 * The files that need a fresh module graph. Every other file runs in one of five long-lived
 * processes, one file after another, its modules shared (not isolated): that spares each file the
 * start of a process and a fresh import of what it tests (docs/testing.md has the measured runs).
 * It works because every resource a file opens is closed in its own afterAll
 * (test/helpers/fixture.ts) and the leak guard fails a file that leaves one; module state in src/
 * is what a process shares by design (caches keyed by what they hold, the byte budget of every
 * client alike). A file belongs here when it replaces a module: `vi.mock` is not undone for the
 * next file.
 */
const ISOLATED_TESTS = [
  // Mocks an endpoint module to rename a field.
  'test/endpoints/rename-end-to-end.test.ts',
];

/** What every test file runs with, whichever project (and the browser tests') it is in. */
export const EACH_FILE = {
  // Each file starts with no other file's closers, and fails if it leaves a server, pool or
  // process running (docs/development.md).
  setupFiles: ['test/setup/fixture-scope.ts', 'test/setup/leak-guard.ts'],
  // Hang guards, not budgets: a test's verdict must not depend on the machine's speed, and a
  // busy 2-core runner took a test that needs 20 s alone past 60 s. Processes a test starts are
  // ended sooner (test/helpers/cli.ts), so a hung one is reported with its output.
  testTimeout: 300_000,
  hookTimeout: 300_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    // Once per run, whatever the project. run-dir first: its teardown, run last, sweeps what the
    // others and the files left.
    globalSetup: ['test/setup/run-dir.ts', 'test/setup/built-cli.ts', 'test/setup/global-db.ts', 'test/setup/embedded-template.ts'],
    // Process-level files first, so that their waits overlap the quick files (test/setup/slow-first.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // The global teardowns stop servers and drop databases; on a busy machine that takes more than
    // vitest's 10 s, and a close cut short leaves the transform caches in the system's /tmp.
    teardownTimeout: 120_000,
    // A focused test would silently skip the rest of the suite on CI.
    allowOnly: !process.env.CI,
    // Five processes for both projects together: the process-level files that start first spend
    // most of a minute waiting on heartbeats and kills, and with three the two cores sat idle
    // behind them (348 s; five: 311 s, six: 302 s but more timing under load). As many at the end
    // as at the start: vitest 3.2 reports a process of a non-isolated pool ended while idle as
    // "Terminating worker thread".
    // `isolate: false` here is what lets a process run more than one file: vitest 3.2's pool reads
    // it from the root config only; a project's own setting decides only whether the modules are
    // reset between its files. Projects never share a process (the pool starts fresh ones between
    // them), so the isolated project's file runs after the others.
    poolOptions: { forks: { maxForks: 5, minForks: 5, isolate: false } },
    projects: [
      {
        test: {
          ...EACH_FILE,
          name: 'shared-process',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS, ...ISOLATED_TESTS],
          poolOptions: { forks: { isolate: false } },
        },
      },
      {
        test: {
          ...EACH_FILE,
          name: 'isolated',
          include: ISOLATED_TESTS,
          // Otherwise taken from the root's pool setting above.
          poolOptions: { forks: { isolate: true } },
        },
      },
    ],
  },
});
