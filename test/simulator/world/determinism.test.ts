import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';
import { DEFAULT_QUIRKS, type World } from '../../../src/simulator/world/types.js';

import { searchParams, walk } from './helpers.js';

/** Every response of the full walk, in order, plus the truth: the world's whole observable surface. */
function surface(world: World): string {
  const responses = walk(world, DEFAULT_QUIRKS).map((r) => JSON.stringify(world.render(r.path, searchParams(r.query), DEFAULT_QUIRKS)));
  return JSON.stringify({ responses, truth: world.truth(), summary: world.summary() });
}

describe('the world is a function of its seed', () => {
  it('the same seed gives byte-identical responses and truth', () => {
    expect(surface(createWorld({ seed: 42, scale: 'tiny' }))).toBe(surface(createWorld({ seed: 42, scale: 'tiny' })));
  });

  it('a different seed gives a different world', () => {
    const a = createWorld({ seed: 42, scale: 'tiny' }).truth();
    const b = createWorld({ seed: 43, scale: 'tiny' }).truth();
    expect(JSON.stringify(b.results)).not.toBe(JSON.stringify(a.results));
    expect(JSON.stringify(b.drivers)).not.toBe(JSON.stringify(a.drivers));
  });

  it('a response does not depend on what was requested before it', () => {
    const fresh = createWorld({ seed: 42, scale: 'small' });
    const busy = createWorld({ seed: 42, scale: 'small' });
    walk(busy, DEFAULT_QUIRKS);
    const query = new URLSearchParams({ ScheduleId: '5506', ClassId: '1001' });
    expect(JSON.stringify(busy.render('/v2/points/', query, DEFAULT_QUIRKS))).toBe(
      JSON.stringify(fresh.render('/v2/points/', query, DEFAULT_QUIRKS)),
    );
  });
});
