import { describe, expect, it } from 'vitest';

import { items, sharedWorld } from './helpers.js';

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, events after today', (scale) => {
  const world = sharedWorld(scale);
  const truth = world.truth();
  const today = `${world.today()} 23:59:59`;
  const future = truth.events.filter((e) => (e.event_date as string) > today).map((e) => e.event_id);
  const past = truth.events.filter((e) => (e.event_date as string) <= today).map((e) => e.event_id);

  it('exist in the current season and have no results, lineups, races or passes', () => {
    expect(future.length).toBeGreaterThan(0);
    const futureSet = new Set(future);
    for (const table of ['results', 'lineups', 'races', 'driver_passes', 'results_feed'] as const) {
      expect(truth[table].filter((r) => futureSet.has(r.event_id)), table).toEqual([]);
    }
    expect(items(world, '/v2/schedules/results/', { EventId: future[0] as number })).toEqual([]);
  });

  it('already have entry lists, while every past event has results', () => {
    const entered = new Set(truth.entry_list.map((e) => e.event_id));
    for (const e of future) expect(entered.has(e)).toBe(true);
    const raced = new Set(truth.results.map((r) => r.event_id));
    for (const e of past) expect(raced.has(e)).toBe(true);
  });
});
