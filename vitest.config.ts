import { configDefaults, defineConfig } from 'vitest/config';

import { SlowFirstSequencer } from './test/setup/slow-first.js';

/** The browser tests need a browser, so they have a command of their own (vitest.browser.config.ts). */
export const BROWSER_TESTS = 'test/**/*.browser.test.ts';

/**
 * Files that start no database and no process, and keep no state between files: they run in
 * long-lived processes, one file after another (not isolated), which spares each of these 70-odd
 * files the start of a fresh process and a fresh import of what it tests (about 0.6 s of CPU each).
 * A file added here must pass in any order with the others (docs/development.md).
 */
const SHARED_PROCESS_TESTS = [
  'test/simulator/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/cron/**/*.test.ts',
  'test/observability/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/coordination/pace.test.ts',
  'test/coordination/lock-picture.test.ts',
];

/** What every test file runs with, whichever project (and the browser tests') it is in. */
export const EACH_FILE = {
  // Fails a file that leaves a server, pool or process running (docs/development.md).
  setupFiles: ['test/setup/leak-guard.ts'],
  // Database and simulator tests do real I/O; two cores, so keep file parallelism modest.
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    // Once per run, whatever the project. run-dir first: its teardown, run last, sweeps what the
    // others and the files left.
    globalSetup: ['test/setup/run-dir.ts', 'test/setup/built-cli.ts', 'test/setup/global-db.ts', 'test/setup/embedded-template.ts'],
    // Process-level files first, so that their waits overlap the quick files (test/setup/slow-first.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // A focused test would silently skip the rest of the suite on CI.
    allowOnly: !process.env.CI,
    // Three processes for both projects together. As many at the end as at the start: vitest 3.2
    // reports a process of a non-isolated pool ended while idle as "Terminating worker thread".
    poolOptions: { forks: { maxForks: 3, minForks: 3 } },
    projects: [
      {
        test: {
          ...EACH_FILE,
          name: 'shared-process',
          include: SHARED_PROCESS_TESTS,
          poolOptions: { forks: { isolate: false } },
        },
      },
      {
        test: {
          ...EACH_FILE,
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS, ...SHARED_PROCESS_TESTS],
        },
      },
    ],
  },
});
