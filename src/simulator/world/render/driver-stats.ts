
import type { WireOf } from '../../../endpoints/declare.js';
import { driverStats as driverStatsEndpoint, type driverStat } from '../../../endpoints/driver-stats.js';
import { driverStats, formatHundredths } from '../derive/stats.js';
import { item } from '../model.js';
import type { RenderOutcome } from '../types.js';

import { ID, type Wire, ok } from './wire.js';

/**
 * GET /v2/schedules/driverStats/ (no parameters) → DriverStats[]: one item per driver, class
 * and season with results, averages as decimal text with two places ("7.25", "9.00").
 */

type DriverStatWire = WireOf<typeof driverStat>;
const DRIVER_STATS_KEY = driverStatsEndpoint.arrayKey;

export function renderDriverStats(wire: Wire): RenderOutcome {
  const { model } = wire.ctx;
  const items: DriverStatWire[] = driverStats(wire.ctx).map((s) => {
    const klass = item(model.classes, s.cls);
    return {
      ScheduleYear: wire.id(ID.year, s.year),
      ClassId: wire.id(ID.class, klass.id),
      ClassName: klass.name,
      Driver: wire.driver(item(model.drivers, s.driver)),
      Starts: s.starts,
      Wins: s.wins,
      Top5: s.top5,
      Top10: s.top10,
      AvgStart: s.avgStart === undefined ? '' : formatHundredths(s.avgStart, true),
      AvgFinish: s.avgFinish === undefined ? '' : formatHundredths(s.avgFinish, true),
    };
  });
  return ok(DRIVER_STATS_KEY, items);
}
