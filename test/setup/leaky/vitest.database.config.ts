import { defineConfig } from 'vitest/config';

import base, { EACH_FILE } from '../../../vitest.config.js';

/** The suite's setup around one file that leaves its database, for test/run-cleanup.test.ts. */
export default defineConfig({
  test: {
    ...base.test,
    ...EACH_FILE,
    projects: undefined,
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/leaves-a-database.ts'],
    exclude: [],
  },
});
