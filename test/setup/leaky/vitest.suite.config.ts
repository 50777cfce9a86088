import { defineConfig } from 'vitest/config';

import base, { EACH_FILE } from '../../../vitest.config.js';

/**
 * The suite's own setup around one file that leaves something behind (a server, a database), for
 * test/run-cleanup.test.ts, which names the file on the command line.
 */
export default defineConfig({
  test: {
    ...base.test,
    ...EACH_FILE,
    projects: undefined,
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/{holds-a-server,leaves-a-database}.ts'],
    exclude: [],
  },
});
