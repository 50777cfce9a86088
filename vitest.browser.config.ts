import { configDefaults, defineConfig } from 'vitest/config';

import { BROWSER_TESTS, EACH_FILE } from './vitest.config.js';

/**
 * `npm run test:browser`: the tests that drive a real browser (test/helpers/chromium.ts finds it),
 * with the main suite's setup but the embedded warehouse's template, which none of them uses.
 * Without a browser each of them fails saying how to name one.
 */
export default defineConfig({
  test: {
    ...EACH_FILE,
    include: [BROWSER_TESTS],
    exclude: configDefaults.exclude,
    globalSetup: ['test/setup/run-dir.ts', 'test/setup/global-db.ts'],
    poolOptions: { forks: { maxForks: 3, minForks: 1 } },
    allowOnly: !process.env.CI,
  },
});
