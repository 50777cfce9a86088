
import type { WireOf } from '../../../endpoints/declare.js';
import type { scheduleItem } from '../../../endpoints/schedules.js';
import { scheduleYears, type scheduleYearItem } from '../../../endpoints/years.js';
import { liveEventsOf } from '../context.js';
import type { RenderOutcome } from '../types.js';

import type { Params } from './params.js';
import { ID, type Wire, ok } from './wire.js';

/** GET /v2/schedules/ (ScheduleYear 0 or absent: every year) and GET /v2/schedules/years/. */

type ScheduleWire = WireOf<typeof scheduleItem>;
type YearWire = WireOf<typeof scheduleYearItem>;
const YEARS_KEY = scheduleYears.arrayKey;

export function renderSchedules(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const year = params.positive('ScheduleYear');
  const items: ScheduleWire[] = [];
  ctx.model.schedules.forEach((s, i) => {
    if (year !== undefined && s.year !== year) return;
    items.push({
      ScheduleId: wire.id(ID.schedule, s.id),
      ScheduleName: s.name,
      ScheduleDesc: s.desc,
      ScheduleYear: s.year,
      EventCount: liveEventsOf(ctx, i).length,
    });
  });
  return ok('Schedules', items);
}

/** Years with their number of schedules (of any kind, or only points schedules). */
export function yearItems(wire: Wire, pointsOnly: boolean): YearWire[] {
  const counts = new Map<number, number>();
  for (const s of wire.ctx.model.schedules) {
    if (!pointsOnly || s.points) counts.set(s.year, (counts.get(s.year) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([year, count]) => ({ ScheduleYear: wire.id(ID.year, year), ScheduleCount: count }));
}

export function renderScheduleYears(wire: Wire): RenderOutcome {
  return ok(YEARS_KEY, yearItems(wire, false));
}
