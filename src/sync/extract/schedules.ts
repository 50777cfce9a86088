import { Collector, list, without } from './collector.js';
import { LEVELS } from './levels.js';
import type { Extracted } from './types.js';

/** GET /v2/schedules/years/ (and /v2/points/years/, same assumed shape) → one row per year. */
export function extractYears(table: 'schedule_years' | 'point_years') {
  const level = table === 'schedule_years' ? LEVELS.scheduleYears : LEVELS.pointYears;
  return (items: unknown[]): Extracted => {
    const c = new Collector();
    c.items(items.length);
    for (const item of items) {
      const y = c.parse(level, item, 'year');
      if (!y) continue;
      c.row(table, { year: y.ScheduleYear, schedule_count: y.ScheduleCount, raw: item });
      c.seed({ year: y.ScheduleYear });
    }
    c.scope({ table, where: {} });
    return c.result();
  };
}

/** GET /v2/schedules/?ScheduleYear=y → schedules of that year. */
export function extractSchedules(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  c.items(items.length);
  for (const item of items) {
    const s = c.parse(LEVELS.schedule, item, 'schedule');
    if (!s) continue;
    c.row('schedules', {
      schedule_id: s.ScheduleId,
      schedule_name: s.ScheduleName,
      schedule_desc: s.ScheduleDesc,
      schedule_year: s.ScheduleYear,
      event_count: s.EventCount,
      raw: item,
    });
    c.seed({ scheduleId: s.ScheduleId });
  }
  c.scope({ table: 'schedules', where: { schedule_year: [Number(params.ScheduleYear)] } });
  return c.result();
}

/**
 * GET /v2/schedules/events/?ScheduleId=s → the schedule's events and their classes. An event
 * that counts toward two schedules arrives in both responses and is one `events` row.
 */
export function extractEvents(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const scheduleId = Number(params.ScheduleId);
  const eventIds: number[] = [];
  c.items(items.length);
  for (const item of items) {
    const e = c.parse(LEVELS.event, item, 'event');
    if (!e) continue;
    eventIds.push(e.EventId);
    c.row('events', {
      event_id: e.EventId,
      event_date: e.EventDate,
      event_name: e.EventName,
      event_description: e.EventDescription,
      raw: without(item, 'Classes'),
    });
    c.row('schedule_events', { schedule_id: scheduleId, event_id: e.EventId, raw: { ScheduleId: scheduleId, EventId: e.EventId } });
    c.seed({ eventId: e.EventId });
    for (const rawClass of list(e.Classes)) {
      const k = c.parse(LEVELS.eventClass, rawClass, `event ${e.EventId} class`, { context: { event_id: e.EventId } });
      if (!k) continue;
      c.klass(k.ClassId, k.ClassName, rawClass);
      c.row('event_classes', {
        event_id: e.EventId,
        class_id: k.ClassId,
        class_name: k.ClassName,
        class_name_override: k.ClassNameOverride,
        raw: rawClass,
      });
    }
  }
  c.scope({ table: 'schedule_events', where: { schedule_id: [scheduleId] } });
  if (eventIds.length) c.scope({ table: 'event_classes', where: { event_id: eventIds } });
  return c.result();
}
