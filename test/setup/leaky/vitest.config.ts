import { defineConfig } from 'vitest/config';

/** Runs of files that misbehave on purpose, for the tests of the leak guard and the fixture. */
export default defineConfig({
  test: {
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/{leaves-a-simulator,closes-in-reverse}.ts'],
    setupFiles: ['test/setup/leak-guard.ts'],
  },
});
