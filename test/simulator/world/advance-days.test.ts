import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';

import { items, parsed } from './helpers.js';

describe('advancing the clock', () => {
  it('posts the results of the events it passes, and standings, feed and stats move', () => {
    const world = createWorld({ seed: 5, scale: 'tiny' });
    const before = world.truth();
    const next = before.events.find((e) => (e.event_date as string) > `${world.today()} 23:59:59`);
    const nextId = next?.event_id as number;
    const schedule = before.schedule_events.find((se) => se.event_id === nextId)?.schedule_id as number;
    expect(items(world, '/v2/schedules/results/', { EventId: nextId })).toEqual([]);
    expect(items(world, '/v2/schedules/lineups/', { EventId: nextId })).toEqual([]);

    const days = (Date.parse((next?.event_date as string).slice(0, 10)) - Date.parse(world.today())) / 86_400_000;
    world.advanceDays(days - 1);
    expect(items(world, '/v2/schedules/results/', { EventId: nextId })).toEqual([]);
    world.advanceDays(1);
    expect(world.today()).toBe((next?.event_date as string).slice(0, 10));

    expect(items(world, '/v2/schedules/results/', { EventId: nextId }).length).toBeGreaterThan(0);
    expect(items(world, '/v2/schedules/lineups/', { EventId: nextId }).length).toBeGreaterThan(0);
    expect(parsed<{ EventId: number }>(world, '/v2/schedules/results/feed/')[0]?.EventId).toBe(nextId);
    const after = world.truth();
    expect(after.results.filter((r) => r.event_id === nextId).length).toBeGreaterThan(0);
    const points = (t: typeof before) => JSON.stringify(t.point_standings.filter((s) => s.schedule_id === schedule));
    expect(points(after)).not.toBe(points(before));
    const day = (next?.event_date as string).slice(0, 10);
    expect(after.point_classes.find((c) => c.schedule_id === schedule)?.points_as_of).toBe(`${day} 00:00:00`);
    expect(JSON.stringify(after.driver_stats)).not.toBe(JSON.stringify(before.driver_stats));
    expect(world.summary().eventsWithResults).toBe(new Set(before.results.map((r) => r.event_id)).size + 1);
  });

  it('setToday moves the clock either way, and rejects a malformed date', () => {
    const world = createWorld({ seed: 5, scale: 'tiny' });
    const rows = world.summary().resultRows;
    world.setToday('2025-01-01');
    expect(world.summary().resultRows).toBe(0);
    world.setToday('2026-07-15');
    expect(world.summary().resultRows).toBe(rows);
    expect(() => world.setToday('7/15/2026')).toThrow();
    expect(() => world.advanceDays(-1)).toThrow();
  });
});
