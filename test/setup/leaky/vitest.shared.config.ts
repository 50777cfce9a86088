import { defineConfig } from 'vitest/config';

import { EACH_FILE } from '../../../vitest.config.js';

/** Two files with file-level fixtures, one after the other in one process, as the suite runs them. */
export default defineConfig({
  test: {
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/top-level-{a,b}.ts'],
    setupFiles: EACH_FILE.setupFiles,
    pool: 'forks',
    poolOptions: { forks: { isolate: false, singleFork: true } },
  },
});
