
import type { WireOf } from '../../../endpoints/declare.js';
import { driverPasses, type driverPass } from '../../../endpoints/driver-passes.js';
import { type WorldContext, isScored, liveEvent } from '../context.js';
import { passesOf } from '../derive/participants.js';
import { type DriverRec, at, eventClassesOf, item } from '../model.js';
import type { RenderOutcome } from '../types.js';

import type { Params } from './params.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * GET /v2/schedules/driverPasses/ → DriverPasses[]: per event, class and driver, races started
 * and cars passed. One of EventId, ScheduleId or DriverId is required; ClassId, StartDate and
 * EndDate narrow it. Events in date order, classes in event order, drivers by name (the
 * SDK's default Order, nameAsc).
 */

type DriverPassWire = WireOf<typeof driverPass>;
const DRIVER_PASSES_KEY = driverPasses.arrayKey;

function scopeEvents(ctx: WorldContext, params: Params): number[] {
  const eventId = params.positive('EventId');
  const scheduleId = params.positive('ScheduleId');
  let events: number[];
  if (eventId !== undefined) {
    const e = liveEvent(ctx, eventId);
    events = e === undefined ? [] : [e];
  } else if (scheduleId !== undefined) {
    const s = ctx.model.scheduleById.get(scheduleId);
    events = s === undefined ? [] : item(ctx.model.schedules, s).events;
  } else {
    events = ctx.model.events.map((_, i) => i);
  }
  const start = params.date('StartDate');
  const end = params.date('EndDate');
  return events.filter((e) => {
    const day = item(ctx.model.events, e).day;
    return isScored(ctx, e) && (start === undefined || day >= start) && (end === undefined || day <= end);
  });
}

/** Code-unit order, not locale collation: renders must not vary with the ICU build. */
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byName = (a: DriverRec, b: DriverRec): number =>
  compareText(a.lastName, b.lastName) || compareText(a.firstName, b.firstName) || a.id - b.id;

export function renderDriverPasses(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const { model } = ctx;
  const driverId = params.positive('DriverId');
  if (params.positive('EventId') === undefined && params.positive('ScheduleId') === undefined && driverId === undefined) {
    return missing(DRIVER_PASSES_KEY, 'give EventId, ScheduleId or DriverId');
  }
  const classId = params.positive('ClassId');
  const driver = driverId === undefined ? undefined : (model.driverById.get(driverId) ?? -1);
  const items: DriverPassWire[] = [];
  for (const e of scopeEvents(ctx, params)) {
    const event = item(model.events, e);
    for (const ec of eventClassesOf(model, e)) {
      const klass = item(model.classes, at(model.eventClasses.cls, ec));
      if (classId !== undefined && klass.id !== classId) continue;
      const passes = passesOf(ctx, ec).filter((p) => driver === undefined || p.driver === driver);
      passes.sort((a, b) => byName(item(model.drivers, a.driver), item(model.drivers, b.driver)));
      for (const p of passes) {
        items.push({
          EventId: wire.id(ID.event, event.id),
          ClassId: wire.id(ID.class, klass.id),
          ClassName: klass.name,
          CarNum: item(model.carNumbers, p.car),
          Driver: wire.driver(item(model.drivers, p.driver)),
          Races: p.races,
          CarsPassed: p.carsPassed,
        });
      }
    }
  }
  return ok(DRIVER_PASSES_KEY, items);
}
