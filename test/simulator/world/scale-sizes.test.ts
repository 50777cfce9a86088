import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';
import type { Scale } from '../../../src/simulator/world/types.js';

/** The sizes each scale promises (result rows of events that have run, at the default today). */
const RESULT_ROWS: Record<Scale, [min: number, max: number]> = {
  tiny: [300, 1_000],
  small: [5_000, 10_000],
  medium: [150_000, 250_000],
  large: [1_000_000, 2_000_000],
};

// Build times are measured by the benchmark and listed in docs/simulator.md, not asserted here: a
// wall-clock bound fails on a busy machine while the code is fine.
describe('each scale builds a world of its promised size', () => {
  for (const scale of Object.keys(RESULT_ROWS) as Scale[]) {
    it(`${scale}`, () => {
      const world = createWorld({ seed: 3, scale });
      const summary = world.summary();
      const [min, max] = RESULT_ROWS[scale];
      expect(summary.resultRows).toBeGreaterThanOrEqual(min);
      expect(summary.resultRows).toBeLessThanOrEqual(max);
      // The summary's count is the truth's: check it where the truth is cheap to build.
      if (scale === 'tiny' || scale === 'small') expect(world.truth().results.length).toBe(summary.resultRows);
    });
  }
});
