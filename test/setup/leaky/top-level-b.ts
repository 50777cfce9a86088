import { expect, it } from 'vitest';

import { useSimulator } from '../../helpers/fixture.js';

// Run only by test/fixture.test.ts, with top-level-a.ts in the same process: a file-level block.
const sim = useSimulator({ scale: 'tiny', seed: 1 });

it('opens a simulator at the top of the file', () => {
  expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  process.stdout.write(`top-level-b ran in process ${process.pid}\n`);
});
