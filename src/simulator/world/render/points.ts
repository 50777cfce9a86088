import type { WireOf } from '../../../endpoints/declare.js';
import { pointClasses as pointClassesEndpoint, type pointClass } from '../../../endpoints/point-classes.js';
import { pointSchedules, type pointSchedule } from '../../../endpoints/point-schedules.js';
import { pointStandings, type pointsHeader, type pointsRow } from '../../../endpoints/point-standings.js';
import { pointYears } from '../../../endpoints/years.js';
import { usDateTime } from '../dates.js';
import { pointClassOverride, pointClasses, pointsAsOf, standings } from '../derive/standings.js';
import { item } from '../model.js';
import { TAG } from '../rng.js';
import type { RenderOutcome } from '../types.js';

import type { Params } from './params.js';
import { yearItems } from './schedules.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * The points group: /v2/points/schedules/ (ScheduleYear optional), /v2/points/years/,
 * /v2/points/classes/ (ScheduleId required; ClassId, ClassCount, and IncludePoints with
 * DriverCount as the SDK sends them) and /v2/points/ (ScheduleId and ClassId required,
 * DriverCount optional). PointsAsOf is the date of the schedule's latest event that has run,
 * as a midnight date-time; "" before the first.
 */

type PointScheduleWire = WireOf<typeof pointSchedule>;
type PointClassWire = WireOf<typeof pointClass>;
type PointsHeaderWire = WireOf<typeof pointsHeader>;
type PointsRowWire = WireOf<typeof pointsRow>;
const POINTS_KEY = pointStandings.arrayKey;
const POINT_SCHEDULES_KEY = pointSchedules.arrayKey;
const POINT_CLASSES_KEY = pointClassesEndpoint.arrayKey;
const YEARS_KEY = pointYears.arrayKey;

function asOfText(wire: Wire, schedule: number): string {
  const day = pointsAsOf(wire.ctx, schedule);
  return day === undefined ? '' : usDateTime(day, 0);
}

/** A points schedule by id; non-points schedules do not exist as far as this group knows. */
function pointsSchedule(wire: Wire, scheduleId: number): number | undefined {
  const s = wire.ctx.model.scheduleById.get(scheduleId);
  return s !== undefined && item(wire.ctx.model.schedules, s).points ? s : undefined;
}

export function renderPointSchedules(wire: Wire, params: Params): RenderOutcome {
  const year = params.positive('ScheduleYear');
  const items: PointScheduleWire[] = [];
  wire.ctx.model.schedules.forEach((s, i) => {
    if (!s.points || (year !== undefined && s.year !== year)) return;
    items.push({
      ScheduleId: wire.id(ID.schedule, s.id),
      ScheduleName: s.name,
      ScheduleDesc: s.desc,
      ScheduleYear: s.year,
      ClassCount: pointClasses(wire.ctx, i).length,
    });
  });
  return ok(POINT_SCHEDULES_KEY, items);
}

export function renderPointYears(wire: Wire): RenderOutcome {
  return ok(YEARS_KEY, yearItems(wire, true));
}

function pointRows(wire: Wire, schedule: number, cls: number, driverCount: number | undefined): PointsRowWire[] {
  const { model } = wire.ctx;
  const scheduleId = item(model.schedules, schedule).id;
  return standings(wire.ctx, schedule, cls)
    .slice(0, driverCount)
    .map((s) => {
      const driver = item(model.drivers, s.driver);
      return {
        Position: wire.count(TAG.quirkPosition, scheduleId, driver.id, s.position),
        CarNum: item(model.carNumbers, s.car),
        PointTotal: wire.pointTotal(s.halfPoints, scheduleId, driver.id),
        Wins: s.wins,
        Top5: s.top5,
        Top10: s.top10,
        Features: s.features,
        Driver: wire.driver(driver),
      };
    });
}

export function renderPointClasses(wire: Wire, params: Params): RenderOutcome {
  const scheduleId = params.positive('ScheduleId');
  if (scheduleId === undefined) return missing(POINT_CLASSES_KEY, 'ScheduleId is required');
  const schedule = pointsSchedule(wire, scheduleId);
  if (schedule === undefined) return ok(POINT_CLASSES_KEY, []);
  const classId = params.positive('ClassId');
  const includePoints = params.bool('IncludePoints', false);
  const driverCount = params.positive('DriverCount');
  const classes = pointClasses(wire.ctx, schedule)
    .filter((c) => classId === undefined || item(wire.ctx.model.classes, c).id === classId)
    .slice(0, params.positive('ClassCount'));
  const items = classes.map((c) => {
    const klass = item(wire.ctx.model.classes, c);
    const rendered: PointClassWire = {
      ClassId: wire.id(ID.class, klass.id),
      ClassName: klass.name,
      ClassNameOverride: pointClassOverride(wire.ctx, schedule, c),
      PointsAsOf: asOfText(wire, schedule),
    };
    return includePoints ? { ...rendered, Points: pointRows(wire, schedule, c, driverCount) } : rendered;
  });
  return ok(POINT_CLASSES_KEY, items);
}

export function renderPoints(wire: Wire, params: Params): RenderOutcome {
  const scheduleId = params.positive('ScheduleId');
  const classId = params.positive('ClassId');
  if (scheduleId === undefined || classId === undefined) return missing(POINTS_KEY, 'ScheduleId and ClassId are required');
  const { model } = wire.ctx;
  const schedule = pointsSchedule(wire, scheduleId);
  const cls = model.classById.get(classId);
  const header: PointsHeaderWire = {
    ClassId: wire.id(ID.class, classId),
    ClassName: cls === undefined ? '' : item(model.classes, cls).name,
    ClassNameOverride: '',
    PointsAsOf: '',
  };
  // A class the schedule does not run answers like the upstream's empty standings.
  if (schedule === undefined || cls === undefined || !pointClasses(wire.ctx, schedule).includes(cls)) {
    return ok(POINTS_KEY, [], header);
  }
  header.ClassNameOverride = pointClassOverride(wire.ctx, schedule, cls);
  header.PointsAsOf = asOfText(wire, schedule);
  return ok(POINTS_KEY, pointRows(wire, schedule, cls, params.positive('DriverCount')), header);
}
