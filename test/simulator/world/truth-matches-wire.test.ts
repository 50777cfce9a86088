import { describe, expect, it } from 'vitest';

import { DEFAULT_QUIRKS, type Truth, type TruthRow } from '../../../src/simulator/world/types.js';

import { sharedWorld, walk } from './helpers.js';
import { entryRows, feedRows, lineupRows, passRows, resultsRows, standingRows, statRows } from './wire-rows.js';

/** Rows as sets of canonical strings: key order inside a row and row order do not matter. */
const asSet = (rows: TruthRow[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))).sort();

describe('the ground truth agrees with the rendered, parsed responses (tiny, default quirks)', () => {
  const world = sharedWorld('tiny');
  const requests = walk(world, DEFAULT_QUIRKS);
  const truth = world.truth();

  it.each([
    ['results', resultsRows],
    ['point_standings', standingRows],
    ['lineups', lineupRows],
    ['entry_list', entryRows],
    ['driver_passes', passRows],
    ['results_feed', feedRows],
    ['driver_stats', statRows],
  ] as const)('for %s', (table: keyof Truth, map: (r: typeof requests) => TruthRow[]) => {
    expect(truth[table].length).toBeGreaterThan(20);
    expect(asSet(map(requests))).toEqual(asSet(truth[table]));
  });
});
