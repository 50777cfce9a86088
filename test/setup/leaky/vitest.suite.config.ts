import { defineConfig } from 'vitest/config';

import base, { EACH_FILE } from '../../../vitest.config.js';

const root = new URL('../../..', import.meta.url).pathname;

/**
 * The suite's own setup around one file that leaves something behind (a server, a database), for
 * test/run-cleanup.test.ts, which names the file on the command line. The file runs in a project,
 * as the suite's do: each project has a transform cache of its own, apart from the root's.
 */
export default defineConfig({
  test: {
    ...base.test,
    root,
    projects: [{ test: { ...EACH_FILE, name: 'leaky', root, include: ['test/setup/leaky/{holds-a-server,leaves-a-database}.ts'] } }],
  },
});
