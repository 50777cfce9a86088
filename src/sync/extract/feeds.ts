import { Collector, list } from './collector.js';
import { LEVELS } from './levels.js';
import type { Extracted } from './types.js';

/**
 * GET /v2/schedules/results/feed/ → Events → Classes → Results (assumed shape). The table
 * mirrors the feed as it stands: rows that drop off the feed get `_deleted_at`. Each event the
 * feed names is a seed, which the `live` job follows to refresh that event.
 */
export function extractFeed(items: unknown[]): Extracted {
  const c = new Collector();
  c.items(items.length);
  for (const rawEvent of items) {
    const e = c.parse(LEVELS.feedEvent, rawEvent, 'feed event');
    if (!e) continue;
    c.seed({ eventId: e.EventId });
    for (const rawClass of list(e.Classes)) {
      const k = c.parse(LEVELS.feedClass, rawClass, `feed event ${e.EventId} class`, { context: { event_id: e.EventId } });
      if (!k) continue;
      c.klass(k.ClassId, k.ClassName, rawClass);
      for (const rawRow of list(k.Results)) {
        const r = c.parse(LEVELS.feedResult, rawRow, `feed event ${e.EventId} class ${k.ClassId} result`, {
          context: { event_id: e.EventId, class_id: k.ClassId },
        });
        if (!r) continue;
        const d = c.driver(r.Driver, (rawRow as Record<string, unknown>).Driver);
        c.row('results_feed', {
          event_id: e.EventId,
          class_id: k.ClassId,
          finish: r.ResultPlace,
          event_date: e.EventDate,
          event_name: e.EventName,
          race_name: k.RaceName,
          car_number: r.ResultCarNum,
          driver_id: d?.DriverId ?? null,
          raw: rawRow,
        });
      }
    }
  }
  c.scope({ table: 'results_feed', where: {} });
  return c.result();
}

/** GET /v2/schedules/driverStats/ → one item per driver, class and season (assumed shape). */
export function extractDriverStats(items: unknown[]): Extracted {
  const c = new Collector();
  c.items(items.length);
  for (const item of items) {
    const s = c.parse(LEVELS.driverStat, item, 'driver stat');
    if (!s) continue;
    const d = c.driver(s.Driver, (item as Record<string, unknown>).Driver);
    if (d?.DriverId === undefined) {
      c.reject('driver stat: Driver.0.DriverId: required for a driver_stats row', item);
      continue;
    }
    c.klass(s.ClassId, s.ClassName, item);
    c.row('driver_stats', {
      driver_id: d.DriverId,
      class_id: s.ClassId,
      year: s.ScheduleYear,
      starts: s.Starts,
      wins: s.Wins,
      top5: s.Top5,
      top10: s.Top10,
      avg_start: s.AvgStart,
      avg_finish: s.AvgFinish,
      raw: item,
    });
  }
  c.scope({ table: 'driver_stats', where: {} });
  return c.result();
}
