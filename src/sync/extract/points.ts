import { Collector, without } from './collector.js';
import { LEVELS } from './levels.js';
import type { Extracted } from './types.js';

/** GET /v2/points/schedules/?ScheduleYear=y → schedules that carry points (assumed shape). */
export function extractPointSchedules(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  c.items(items.length);
  for (const item of items) {
    const s = c.parse(LEVELS.pointSchedule, item, 'point schedule');
    if (!s) continue;
    c.row('point_schedules', {
      schedule_id: s.ScheduleId,
      schedule_name: s.ScheduleName,
      schedule_desc: s.ScheduleDesc,
      schedule_year: s.ScheduleYear,
      class_count: s.ClassCount,
      raw: item,
    });
    c.seed({ scheduleId: s.ScheduleId });
  }
  c.scope({ table: 'point_schedules', where: { schedule_year: [Number(params.ScheduleYear)] } });
  return c.result();
}

/** GET /v2/points/classes/?ScheduleId=s → the classes with standings in that schedule (assumed shape). */
export function extractPointClasses(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const scheduleId = Number(params.ScheduleId);
  c.items(items.length);
  for (const item of items) {
    const k = c.parse(LEVELS.pointClass, item, `point schedule ${scheduleId} class`, { context: { schedule_id: scheduleId } });
    if (!k) continue;
    c.klass(k.ClassId, k.ClassName, item);
    c.row('point_classes', {
      schedule_id: scheduleId,
      class_id: k.ClassId,
      class_name: k.ClassName,
      class_name_override: k.ClassNameOverride,
      points_as_of: k.PointsAsOf,
      raw: item,
    });
    c.seed({ scheduleId, classId: k.ClassId });
  }
  c.scope({ table: 'point_classes', where: { schedule_id: [scheduleId] } });
  return c.result();
}

/**
 * GET /v2/points/?ScheduleId=s&ClassId=c → the standings. The header (ClassId, PointsAsOf, ...)
 * sits beside the Points array in the envelope, so it is read from the body.
 */
export function extractStandings(items: unknown[], params: Record<string, string>, body: Record<string, unknown>): Extracted {
  const c = new Collector();
  const scheduleId = Number(params.ScheduleId);
  const classId = Number(params.ClassId);
  c.items(items.length);
  // The envelope's own fields are not kept in raw; a bad header is rejected without the rows it
  // sits beside.
  const header = c.parse(LEVELS.pointsHeader, without(body, 'Points'), `points ${scheduleId}/${classId} header`, {
    context: { schedule_id: scheduleId, class_id: classId },
    checkStorable: false,
  });
  const pointsAsOf = header?.PointsAsOf ?? null;
  for (const item of items) {
    const p = c.parse(LEVELS.pointsRow, item, `points ${scheduleId}/${classId} row`, {
      context: { schedule_id: scheduleId, class_id: classId },
    });
    if (!p) continue;
    const d = c.driver(p.Driver, (item as Record<string, unknown>).Driver);
    if (d?.DriverId === undefined) {
      c.reject(`points ${scheduleId}/${classId} row: Driver.0.DriverId: required for a point_standings row`, item);
      continue;
    }
    c.row('point_standings', {
      schedule_id: scheduleId,
      class_id: classId,
      driver_id: d.DriverId,
      position: p.Position,
      car_number: p.CarNum,
      point_total: p.PointTotal,
      wins: p.Wins,
      top5: p.Top5,
      top10: p.Top10,
      features: p.Features,
      points_as_of: pointsAsOf,
      raw: item,
    });
  }
  c.scope({ table: 'point_standings', where: { schedule_id: [scheduleId], class_id: [classId] } });
  return c.result();
}
