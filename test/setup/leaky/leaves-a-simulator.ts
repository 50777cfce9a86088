import { expect, it } from 'vitest';

import { startSimulator } from '../../../src/simulator/server.js';

// Run only by test/leak-guard.test.ts, through its own config: a file that forgets to close.
it('starts a simulator and never closes it', async () => {
  const sim = await startSimulator({ scale: 'tiny', seed: 1 });
  expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});
