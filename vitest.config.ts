import { configDefaults, defineConfig } from 'vitest/config';

import { SlowFirstSequencer } from './test/setup/slow-first.js';

/** The browser tests need a browser, so they have a command of their own (vitest.browser.config.ts). */
export const BROWSER_TESTS = 'test/**/*.browser.test.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, BROWSER_TESTS],
    // run-dir first: its teardown, run last, sweeps what the others and the files left.
    globalSetup: ['test/setup/run-dir.ts', 'test/setup/built-cli.ts', 'test/setup/global-db.ts', 'test/setup/embedded-template.ts'],
    // Fails a file that leaves a server, pool or process running (docs/development.md).
    setupFiles: ['test/setup/leak-guard.ts'],
    // Database and simulator tests do real I/O; two cores, so keep file parallelism modest.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    // Process-level files first, so that their waits overlap the quick files (test/setup/slow-first.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // A focused test would silently skip the rest of the suite on CI.
    allowOnly: !process.env.CI,
  },
});
