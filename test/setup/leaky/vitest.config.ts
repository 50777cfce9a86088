import { defineConfig } from 'vitest/config';

/** A run of one file that leaves a simulator listening: the leak guard must fail it. */
export default defineConfig({
  test: {
    root: new URL('../../..', import.meta.url).pathname,
    include: ['test/setup/leaky/leaves-a-simulator.ts'],
    setupFiles: ['test/setup/leak-guard.ts'],
  },
});
