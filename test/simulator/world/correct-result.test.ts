import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';

import { parsed } from './helpers.js';

describe('a steward’s correction of one result row', () => {
  it('changes that row, and the standings, passes, stats and feed that follow from it', () => {
    const world = createWorld({ seed: 5, scale: 'tiny' });
    const before = world.truth();
    // The winner of the latest feature of a points schedule: the correction touches every derived figure.
    const feed = before.results_feed.filter((f) => f.finish === 1).reverse(); // newest event first
    const target = feed.find((f) => before.point_standings.some((s) => s.class_id === f.class_id && s.driver_id === f.driver_id));
    const { event_id: eventId, class_id: classId, driver_id: driverId } = target ?? {};
    const raceNumber = Math.max(...before.races.filter((r) => r.event_id === eventId && r.class_id === classId).map((r) => r.race_number as number));
    const row = before.results.find((r) => r.event_id === eventId && r.class_id === classId && r.race_number === raceNumber && r.finish === 1);
    expect(row?.driver_id).toBe(driverId);

    world.correctResult({ eventId: eventId as number, classId: classId as number, raceNumber, rowIndex: row?.row_index as number, set: { dq: true, carNumber: '7X' } });
    const after = world.truth();
    const same = (r: Record<string, unknown>) => r.event_id === eventId && r.class_id === classId && r.race_number === raceNumber && r.row_index === row?.row_index;
    expect(after.results.find(same)).toMatchObject({ dq: true, car_number: '7X', finish: 1 });

    const standing = (t: typeof before) => t.point_standings.filter((s) => s.class_id === classId && s.driver_id === driverId && before.schedule_events.some((se) => se.schedule_id === s.schedule_id && se.event_id === eventId));
    const [was, now] = [standing(before), standing(after)];
    expect(was.length).toBeGreaterThan(0);
    was.forEach((s, i) => {
      expect(Number(now[i]?.point_total)).toBe(Number(s.point_total) - 100);
      expect(now[i]?.wins).toBe((s.wins as number) - 1);
      expect(now[i]?.car_number).toBe('7X');
    });
    const stat = (t: typeof before) => t.driver_stats.find((s) => s.driver_id === driverId && s.class_id === classId && s.year === 2026);
    expect(stat(after)?.wins).toBe((stat(before)?.wins as number) - 1);
    expect(after.results_feed.find((f) => f.event_id === eventId && f.class_id === classId && f.finish === 1)?.car_number).toBe('7X');
    const rendered = parsed<{ Races: { Results: { ResultDQ: boolean }[] }[] }>(world, '/v2/schedules/results/', { EventId: eventId as number, ClassId: classId as number });
    expect(rendered[0]?.Races[raceNumber - 1]?.Results[(row?.row_index as number) - 1]?.ResultDQ).toBe(true);
    expect(() => world.correctResult({ eventId: eventId as number, classId: classId as number, raceNumber: 99, rowIndex: 1, set: { dq: true } })).toThrow();
  });
});
