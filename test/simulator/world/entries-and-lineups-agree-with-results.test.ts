import { describe, expect, it } from 'vitest';

import { sharedWorld } from './helpers.js';

const sorted = (values: string[]) => [...values].sort();

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, who raced is told the same way everywhere', (scale) => {
  const truth = sharedWorld(scale).truth();
  const raced = new Set(truth.results.map((r) => r.event_id));

  it('the entry list of an event that has run is exactly who raced, with their car numbers', () => {
    // Everyone runs the feature (the last race), so its rows name every driver and the car they ended in.
    const lastRace = new Map<string, number>();
    for (const r of truth.results) lastRace.set(`${r.event_id}:${r.class_id}`, Math.max(lastRace.get(`${r.event_id}:${r.class_id}`) ?? 0, r.race_number as number));
    const fromResults = truth.results
      .filter((r) => lastRace.get(`${r.event_id}:${r.class_id}`) === r.race_number)
      .map((r) => `${r.event_id}:${r.class_id}:${r.driver_id}:${r.car_number}`);
    const fromEntries = truth.entry_list
      .filter((e) => raced.has(e.event_id))
      .map((e) => `${e.event_id}:${e.class_id}:${e.driver_id}:${e.car_number}`);
    expect(fromEntries.length).toBeGreaterThan(100);
    expect(sorted(fromEntries)).toEqual(sorted(fromResults));
    const allDrivers = new Set(truth.results.map((r) => `${r.event_id}:${r.class_id}:${r.driver_id}`));
    expect(allDrivers.size).toBe(fromEntries.length);
  });

  it('each lineup is its race’s start order, with the same drivers and cars', () => {
    const fromResults = truth.results.map((r) => `${r.event_id}:${r.class_id}:${r.race_number}:${r.start}:${r.driver_id}:${r.car_number}`);
    const fromLineups = truth.lineups.map(
      (l) => `${l.event_id}:${l.class_id}:${l.race_number}:${l.start_position}:${l.driver_id}:${l.car_number}`,
    );
    expect(sorted(fromLineups)).toEqual(sorted(fromResults));
    const names = new Map(truth.races.map((r) => [`${r.event_id}:${r.class_id}:${r.race_number}`, r.race_name]));
    for (const l of truth.lineups) expect(l.race_name).toBe(names.get(`${l.event_id}:${l.class_id}:${l.race_number}`));
  });
});
