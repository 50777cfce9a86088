import { describe, expect, it } from 'vitest';

import { sharedWorld } from './helpers.js';

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, cars passed follow from starts and finishes', (scale) => {
  it('races = rows started, cars passed = sum of max(0, start - finish) leaving out DNS and DQ', () => {
    const truth = sharedWorld(scale).truth();
    const expected = new Map<string, { races: number; passed: number }>();
    for (const r of truth.results) {
      const key = `${r.event_id}:${r.class_id}:${r.driver_id}`;
      const e = expected.get(key) ?? { races: 0, passed: 0 };
      if (!r.dns) e.races++;
      if (!r.dns && !r.dq) e.passed += Math.max(0, (r.start as number) - (r.finish as number));
      expected.set(key, e);
    }
    expect(truth.driver_passes.length).toBe(expected.size);
    let passedSomebody = 0;
    for (const p of truth.driver_passes) {
      const e = expected.get(`${p.event_id}:${p.class_id}:${p.driver_id}`);
      expect([p.races, p.cars_passed]).toEqual([e?.races, e?.passed]);
      if ((p.cars_passed as number) > 0) passedSomebody++;
    }
    expect(passedSomebody).toBeGreaterThan(truth.driver_passes.length / 4);
  });
});
