import { describe, expect, it } from 'vitest';

import { items, parsed, sharedWorld } from './helpers.js';

const world = sharedWorld('small');
type Event = { EventId: number; EventDate: string; Classes?: unknown[] };
const events = (query: Record<string, string | number>) => parsed<Event>(world, '/v2/schedules/events/', query);

describe('request parameters are read the way an ASP.NET backend reads them', () => {
  it('names in any case, numbers as text, booleans as true/false/TRUE/1/0', () => {
    const classId = (events({ EventId: 400010 })[0]?.Classes?.[1] as { ClassId: number } | undefined)?.ClassId ?? 0;
    const base = items(world, '/v2/schedules/results/', { EventId: 400010, ClassId: classId });
    expect(base.length).toBe(1);
    expect(items(world, '/v2/schedules/results/', { eventid: ' 400010', CLASSID: String(classId) })).toEqual(base);
    for (const no of ['false', 'FALSE', '0']) expect(events({ ScheduleId: 5500, includeclass: no })[0]?.Classes).toBeUndefined();
    for (const yes of ['true', 'TRUE', '1']) expect(events({ ScheduleId: 5500, IncludeClass: yes })[0]?.Classes?.length).toBeGreaterThan(0);
    expect(events({ ScheduleId: 5500 })[0]?.Classes?.length).toBeGreaterThan(0);
  });

  it('events filter by year, by date range, and count around a date', () => {
    const in2025 = events({ EventYear: 2025 });
    expect(in2025.length).toBeGreaterThan(15);
    for (const e of in2025) expect(e.EventDate.startsWith('2025-')).toBe(true);
    const may = events({ StartDate: '5/1/2025', EndDate: '05/31/2025' });
    expect(may.map((e) => e.EventDate.slice(0, 7))).toEqual(may.map(() => '2025-05'));
    expect(may).toEqual(in2025.filter((e) => e.EventDate.startsWith('2025-05')));
    const next3 = events({ StartDate: '5/1/2025', FutureCount: 3 });
    expect(next3).toEqual(in2025.filter((e) => e.EventDate >= '2025-05-01').slice(0, 3));
    const around = events({ StartDate: '5/1/2025', FutureCount: 2, PastCount: 2 });
    expect(around.map((e) => e.EventId)).toEqual(in2025.filter((e) => e.EventDate < '2025-05-01').slice(-2).concat(next3.slice(0, 2)).map((e) => e.EventId));
  });

  it('a single event by EventId; results cut by RaceCount, DriverCount and DriverId only when asked', () => {
    expect(events({ EventId: 400010 }).map((e) => e.EventId)).toEqual([400010]);
    type Cls = { Races: { Results: { Driver: { DriverId: number }[] }[] }[] };
    const all = parsed<Cls>(world, '/v2/schedules/results/', { EventId: 400010 });
    const cut = parsed<Cls>(world, '/v2/schedules/results/', { EventId: 400010, RaceCount: 1, DriverCount: 2 });
    expect(all[0]?.Races.length).toBeGreaterThan(2);
    expect(cut.map((c) => c.Races.length)).toEqual(all.map(() => 1));
    expect(cut[0]?.Races[0]?.Results.length).toBe(2);
    const driverId = all[0]?.Races[0]?.Results[0]?.Driver[0]?.DriverId ?? 0;
    const mine = parsed<Cls>(world, '/v2/schedules/results/', { EventId: 400010, DriverId: driverId });
    expect(mine.flatMap((c) => c.Races.flatMap((r) => r.Results.map((x) => x.Driver[0]?.DriverId)))).toEqual([driverId, driverId]);
  });
});
