import { describe, expect, it } from 'vitest';

import { sharedWorld } from './helpers.js';

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, the world has the awkward cases real data has', (scale) => {
  const truth = sharedWorld(scale).truth();

  it('several events count in two schedules', () => {
    const perEvent = new Map<unknown, number>();
    for (const se of truth.schedule_events) perEvent.set(se.event_id, (perEvent.get(se.event_id) ?? 0) + 1);
    expect([...perEvent.values()].filter((n) => n === 2).length).toBeGreaterThanOrEqual(3);
  });

  it('cars "00" and "0" are different drivers in the same class at the same event', () => {
    const byEventClass = new Map<string, Map<unknown, unknown>>();
    for (const e of truth.entry_list) {
      const cars = byEventClass.get(`${e.event_id}:${e.class_id}`) ?? new Map();
      cars.set(e.car_number, e.driver_id);
      byEventClass.set(`${e.event_id}:${e.class_id}`, cars);
    }
    const both = [...byEventClass.values()].filter((cars) => cars.has('00') && cars.has('0'));
    expect(both.length).toBeGreaterThan(0);
    for (const cars of both) expect(cars.get('00')).not.toBe(cars.get('0'));
    const numbers = new Set(truth.entry_list.map((e) => e.car_number));
    for (const car of ['7x', '21A', '1', '99']) expect(numbers.has(car), car).toBe(true);
  });

  it('some drivers race two classes', () => {
    const classes = new Map<unknown, Set<unknown>>();
    for (const e of truth.entry_list) classes.set(e.driver_id, (classes.get(e.driver_id) ?? new Set()).add(e.class_id));
    expect([...classes.values()].filter((c) => c.size > 1).length).toBeGreaterThan(0);
  });

  it('names carry accents and apostrophes, and some drivers a suffix or no city', () => {
    const names = truth.drivers.map((d) => `${d.first_name} ${d.last_name}`);
    expect(names.some((n) => /[^\x00-\x7f]/.test(n))).toBe(true);
    expect(names.some((n) => n.includes("'"))).toBe(true);
    if (scale !== 'tiny') expect(truth.drivers.some((d) => d.suffix !== null)).toBe(true);
    if (scale !== 'tiny') expect(truth.drivers.some((d) => d.city === null)).toBe(true);
  });

  it('some classes run under an override name, and some point totals end in .5', () => {
    expect(truth.event_classes.some((c) => c.class_name_override !== null)).toBe(true);
    expect(truth.event_classes.some((c) => c.class_name_override === null)).toBe(true);
    expect(truth.point_standings.some((s) => String(s.point_total).endsWith('.5'))).toBe(true);
  });
});
