import { defineConfig } from 'vitest/config';

import base, { EACH_FILE } from '../../../vitest.config.js';

/** The suite's own setup around one file that holds a server, for test/run-cleanup.test.ts. */
export default defineConfig({
  test: {
    ...base.test,
    ...EACH_FILE,
    projects: undefined,
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/holds-a-server.ts'],
    exclude: [],
  },
});
