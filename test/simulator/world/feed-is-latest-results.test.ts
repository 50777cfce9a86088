import { describe, expect, it } from 'vitest';

import { sharedWorld } from './helpers.js';

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, the results feed', (scale) => {
  it('holds the five latest events with results, each class’s whole feature by finish', () => {
    const truth = sharedWorld(scale).truth();
    const dates = new Map(truth.events.map((e) => [e.event_id, e.event_date as string]));
    const withResults = [...new Set(truth.results.map((r) => r.event_id as number))];
    withResults.sort((a, b) => ((dates.get(b) ?? '') < (dates.get(a) ?? '') ? -1 : 1) || b - a);
    const latest = withResults.slice(0, 5);
    expect(new Set(truth.results_feed.map((f) => f.event_id))).toEqual(new Set(latest));

    const feature = new Map<string, number>();
    for (const r of truth.results) feature.set(`${r.event_id}:${r.class_id}`, Math.max(feature.get(`${r.event_id}:${r.class_id}`) ?? 0, r.race_number as number));
    const expected = truth.results
      .filter((r) => latest.includes(r.event_id as number) && feature.get(`${r.event_id}:${r.class_id}`) === r.race_number)
      .map((r) => `${r.event_id}:${r.class_id}:${r.finish}:${r.driver_id}:${r.car_number}:${dates.get(r.event_id)}`)
      .sort();
    const actual = truth.results_feed.map((f) => `${f.event_id}:${f.class_id}:${f.finish}:${f.driver_id}:${f.car_number}:${f.event_date}`).sort();
    expect(actual).toEqual(expected);
  });
});
