import { type WorldContext, isLive, liveEventsOf } from '../context.js';
import { canonicalTimestamp } from '../dates.js';
import { at, eventClassRows, eventClassesOf, item } from '../model.js';
import type { Truth, TruthRow } from '../types.js';

import { text } from './canonical.js';

/**
 * Years, schedules, events and their classes, and every class and driver the walk meets.
 * Every live event is in some schedule, so the walk reaches all of them; every driver of a
 * live event is on its entry list, and every class of a live event on its Classes, which makes
 * these the full sets (standings, stats, passes and the feed only ever name a subset).
 */
export function calendarTruth(
  ctx: WorldContext,
): Pick<Truth, 'schedule_years' | 'schedules' | 'events' | 'schedule_events' | 'event_classes' | 'classes' | 'drivers'> {
  const { model } = ctx;
  const scheduleYears = new Map<number, number>();
  const schedules: TruthRow[] = [];
  const scheduleEvents: TruthRow[] = [];
  model.schedules.forEach((s, i) => {
    scheduleYears.set(s.year, (scheduleYears.get(s.year) ?? 0) + 1);
    const events = liveEventsOf(ctx, i);
    schedules.push({
      schedule_id: s.id,
      schedule_name: text(s.name),
      schedule_desc: text(s.desc),
      schedule_year: s.year,
      event_count: events.length,
    });
    for (const e of events) scheduleEvents.push({ schedule_id: s.id, event_id: item(model.events, e).id });
  });

  const events: TruthRow[] = [];
  const eventClasses: TruthRow[] = [];
  const classes = new Set<number>();
  const drivers = new Set<number>();
  model.events.forEach((event, e) => {
    if (!isLive(ctx, e)) return;
    events.push({
      event_id: event.id,
      event_date: canonicalTimestamp(event.day, event.minutes),
      event_name: text(event.name),
      event_description: text(event.description),
    });
    for (const ec of eventClassesOf(ctx.model, e)) {
      const cls = at(model.eventClasses.cls, ec);
      classes.add(cls);
      eventClasses.push({
        event_id: event.id,
        class_id: item(model.classes, cls).id,
        class_name: text(item(model.classes, cls).name),
        class_name_override: text(item(model.eventClasses.override, ec)),
      });
      const [first, end] = eventClassRows(model, ec);
      for (let row = first; row < end; row++) drivers.add(at(model.rows.driver, row));
    }
  });

  return {
    schedule_years: [...scheduleYears].map(([year, count]) => ({ year, schedule_count: count })),
    schedules,
    events,
    schedule_events: scheduleEvents,
    event_classes: eventClasses,
    classes: [...classes].map((c) => ({ class_id: item(model.classes, c).id, class_name: text(item(model.classes, c).name) })),
    drivers: [...drivers].map((d) => {
      const driver = item(model.drivers, d);
      return {
        driver_id: driver.id,
        first_name: text(driver.firstName),
        last_name: text(driver.lastName),
        suffix: text(driver.suffix),
        city: text(driver.city),
        state: text(driver.state),
        country: text(driver.country),
      };
    }),
  };
}
