import type { WorldContext } from '../context.js';
import { canonicalTimestamp } from '../dates.js';
import { FEED_DEFAULT_EVENTS, featureByFinish, feedEvents } from '../derive/feed.js';
import { driverStats, formatHundredths } from '../derive/stats.js';
import { at, eventClassesOf, featureRace, item, raceName } from '../model.js';
import type { Truth, TruthRow } from '../types.js';

import { text } from './canonical.js';

/** The results feed as the walk reads it (no parameters: 5 events, every class and finisher) and driver stats. */
export function derivedTruth(ctx: WorldContext): Pick<Truth, 'results_feed' | 'driver_stats'> {
  const { model } = ctx;
  const feed: TruthRow[] = [];
  for (const e of feedEvents(ctx, FEED_DEFAULT_EVENTS)) {
    const event = item(model.events, e);
    for (const ec of eventClassesOf(ctx.model, e)) {
      const race_name = raceName(model, featureRace(model, ec));
      for (const row of featureByFinish(ctx, ec)) {
        feed.push({
          event_id: event.id,
          class_id: item(model.classes, at(model.eventClasses.cls, ec)).id,
          finish: at(model.rows.finish, row),
          event_date: canonicalTimestamp(event.day, event.minutes),
          event_name: text(event.name),
          race_name,
          car_number: item(model.carNumbers, at(model.rows.car, row)),
          driver_id: item(model.drivers, at(model.rows.driver, row)).id,
        });
      }
    }
  }
  const hundredths = (value: number | undefined) => (value === undefined ? null : formatHundredths(value, false));
  const stats = driverStats(ctx).map((s) => ({
    driver_id: item(model.drivers, s.driver).id,
    class_id: item(model.classes, s.cls).id,
    year: s.year,
    starts: s.starts,
    wins: s.wins,
    top5: s.top5,
    top10: s.top10,
    avg_start: hundredths(s.avgStart),
    avg_finish: hundredths(s.avgFinish),
  }));
  return { results_feed: feed, driver_stats: stats };
}
