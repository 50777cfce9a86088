import { describe, expect, it } from 'vitest';

import { FLAG } from '../../../src/simulator/world/model.js';
import { formatHalfPoints, halfPointsFor } from '../../../src/simulator/world/points.js';

import { sharedWorld } from './helpers.js';

interface Tally { half: number; wins: number; driver: number; table: string; position?: number }

describe.each(['tiny', 'small', 'medium'] as const)('at %s scale, standings are the sum of results by the points rule', (scale) => {
  it('point totals, wins and positions follow from the results table', () => {
    const truth = sharedWorld(scale).truth();
    const cars = new Map<string, number>(); // rows per race
    const feature = new Map<string, number>(); // the last race of each event class
    for (const r of truth.results) {
      const race = `${r.event_id}:${r.class_id}:${r.race_number}`;
      cars.set(race, (cars.get(race) ?? 0) + 1);
      feature.set(`${r.event_id}:${r.class_id}`, Math.max(feature.get(`${r.event_id}:${r.class_id}`) ?? 0, r.race_number as number));
    }
    const pointsSchedules = new Set(truth.point_schedules.map((s) => s.schedule_id));
    const schedulesOf = new Map<unknown, unknown[]>();
    for (const se of truth.schedule_events) {
      if (pointsSchedules.has(se.schedule_id)) schedulesOf.set(se.event_id, [...(schedulesOf.get(se.event_id) ?? []), se.schedule_id]);
    }
    const expected = new Map<string, Tally>();
    for (const r of truth.results) {
      const isFeature = feature.get(`${r.event_id}:${r.class_id}`) === r.race_number;
      const flags = (r.dnf ? FLAG.dnf : 0) | (r.dns ? FLAG.dns : 0) | (r.dq ? FLAG.dq : 0);
      const half = halfPointsFor(isFeature, r.finish as number, cars.get(`${r.event_id}:${r.class_id}:${r.race_number}`) ?? 0, flags);
      for (const s of schedulesOf.get(r.event_id) ?? []) {
        const table = `${s}:${r.class_id}`;
        const t = expected.get(`${table}:${r.driver_id}`) ?? { half: 0, wins: 0, driver: r.driver_id as number, table };
        t.half += half;
        if (isFeature && r.finish === 1 && !r.dq && !r.dns) t.wins++;
        expected.set(`${table}:${r.driver_id}`, t);
      }
    }
    const tables = new Map<string, Tally[]>();
    for (const t of expected.values()) tables.set(t.table, [...(tables.get(t.table) ?? []), t]);
    for (const rows of tables.values()) {
      rows.sort((a, b) => b.half - a.half || b.wins - a.wins || a.driver - b.driver).forEach((t, i) => (t.position = i + 1));
    }
    expect(truth.point_standings.length).toBe(expected.size);
    for (const s of truth.point_standings) {
      const t = expected.get(`${s.schedule_id}:${s.class_id}:${s.driver_id}`);
      expect([s.point_total, s.wins, s.position]).toEqual([formatHalfPoints(t?.half ?? -2), t?.wins, t?.position]);
    }
  });
});
