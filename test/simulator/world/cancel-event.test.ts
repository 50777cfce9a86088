import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';

import { items, parsed } from './helpers.js';

describe('cancelling an event', () => {
  it('removes it from every schedule, list, result and derived figure', () => {
    const world = createWorld({ seed: 5, scale: 'tiny' });
    const before = world.truth();
    // The latest event with results that counts in two schedules: it is in the feed and two standings.
    const counts = new Map<number, number>();
    for (const se of before.schedule_events) counts.set(se.event_id as number, (counts.get(se.event_id as number) ?? 0) + 1);
    const withResults = new Set(before.results.map((r) => r.event_id));
    const eventId = Math.max(...[...counts].filter(([e, n]) => n === 2 && withResults.has(e)).map(([e]) => e));
    const schedules = before.schedule_events.filter((se) => se.event_id === eventId).map((se) => se.schedule_id as number);
    expect(schedules.length).toBe(2);
    const eventCount = (scheduleId: number) =>
      parsed<{ ScheduleId: number; EventCount: number }>(world, '/v2/schedules/').find((s) => s.ScheduleId === scheduleId)?.EventCount ?? -1;
    const countsBefore = schedules.map(eventCount);

    world.cancelEvent(eventId);
    expect(schedules.map(eventCount)).toEqual(countsBefore.map((n) => n - 1));
    for (const s of schedules) {
      expect(parsed<{ EventId: number }>(world, '/v2/schedules/events/', { ScheduleId: s }).map((e) => e.EventId)).not.toContain(eventId);
    }
    for (const path of ['/v2/schedules/events/', '/v2/schedules/results/', '/v2/schedules/lineups/', '/v2/schedules/entryList/', '/v2/schedules/driverPasses/']) {
      expect(items(world, path, { EventId: eventId }), path).toEqual([]);
    }
    expect(parsed<{ EventId: number }>(world, '/v2/schedules/results/feed/').map((e) => e.EventId)).not.toContain(eventId);

    const after = world.truth();
    for (const [table, rows] of Object.entries(after)) {
      expect(rows.filter((r) => r.event_id === eventId), table).toEqual([]);
    }
    const standings = (t: typeof before) => JSON.stringify(t.point_standings.filter((s) => schedules.includes(s.schedule_id as number)));
    expect(standings(after)).not.toBe(standings(before));
    expect(after.results.length).toBeLessThan(before.results.length);
    expect(() => world.cancelEvent(1)).toThrow();
  });
});
