import { defineConfig } from 'vitest/config';

import base from '../../../vitest.config.js';

/** The suite's own setup around one file that holds a server, for test/run-cleanup.test.ts. */
export default defineConfig({
  ...base,
  test: { ...base.test, root: new URL('../../..', import.meta.url).pathname, include: ['test/setup/leaky/holds-a-server.ts'], exclude: [] },
});
