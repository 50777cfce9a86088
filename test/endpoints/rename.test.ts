import { describe, expect, it } from 'vitest';

import { optInt } from '../../src/api/schemas/primitives.js';
import { field } from '../../src/endpoints/declare.js';
import { wireColumnsDoc } from '../../src/endpoints/wire-columns-doc.js';
import { createWorld } from '../../src/simulator/world/index.js';
import { NO_QUIRKS } from '../../src/simulator/world/types.js';
import { endpoint } from '../../src/sync/endpoints.js';
import { modelledPaths } from '../../src/sync/shape/modelled.js';

import { renamedCopy } from './helpers.js';

const results = endpoint('results');

const ROW = 'Classes[].Races[].Results[]';

/** The results of one event of a tiny world, as the simulator renders them, with ResultStart sent as StartPos. */
function renderedResults(rename: boolean): { items: unknown[]; params: Record<string, string> } {
  const world = createWorld({ seed: 3, scale: 'tiny' });
  const events = world.render('/v2/schedules/results/feed/', new URLSearchParams(), NO_QUIRKS);
  if (events.kind !== 'ok') throw new Error('no feed');
  const eventId = String((events.items[0] as { EventId: number }).EventId);
  const outcome = world.render('/v2/schedules/results/', new URLSearchParams({ EventId: eventId }), NO_QUIRKS);
  if (outcome.kind !== 'ok') throw new Error('no results');
  let text = JSON.stringify(outcome.items);
  if (rename) text = text.replaceAll('"ResultStart":', '"StartPos":');
  return { items: JSON.parse(text) as unknown[], params: { EventId: eventId } };
}

describe('a field renamed in one line of a copy of its declaration', () => {
  const copy = renamedCopy(results, ROW, 'start', field('StartPos', optInt));

  it('changes the schema, the extraction, the modelled set and the docs together', () => {
    const leaf = copy.levels.find((l) => l.path === ROW)!;
    expect(Object.keys(leaf.schema.shape)).toContain('StartPos');
    expect(Object.keys(leaf.schema.shape)).not.toContain('ResultStart');

    const modelled = modelledPaths(copy.levels);
    expect(modelled.has(`${ROW}.StartPos`)).toBe(true);
    expect(modelled.has(`${ROW}.ResultStart`)).toBe(false);

    expect(wireColumnsDoc([copy])).toMatch(/^- `Classes\[\]\.Races\[\]\.Results\[\]` → `results`: .*`StartPos` → `start` \(integer\)/m);
    expect(wireColumnsDoc([copy])).not.toContain('ResultStart');
  });

  it('fills the column from the new name, row for row as the original fills it from the old one', () => {
    const before = renderedResults(false);
    const after = renderedResults(true);
    const original = results.extract(before.items, before.params, {});
    const renamed = copy.extract(after.items, after.params, {});
    const starts = (rows: unknown[] | undefined) => (rows ?? []).map((r) => (r as { start: unknown }).start);
    expect(starts(original.rows.results).length).toBeGreaterThan(0);
    expect(starts(original.rows.results).some((s) => s !== null)).toBe(true);
    expect(starts(renamed.rows.results)).toEqual(starts(original.rows.results));
    expect(renamed.fieldErrors).toEqual([]);
    expect(renamed.rejects).toEqual([]);
    // The old declaration reads nothing from the new name: the difference is visible, not silent.
    expect(starts(results.extract(after.items, after.params, {}).rows.results).every((s) => s === null)).toBe(true);
  });
});
