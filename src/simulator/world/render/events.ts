
import type { WireOf } from '../../../endpoints/declare.js';
import type { scheduleEvent } from '../../../endpoints/events.js';
import { type WorldContext, isLive, liveEvent, liveEventsOf } from '../context.js';
import { usDateTime, yearOf } from '../dates.js';
import { at, eventClassesOf, item } from '../model.js';
import type { RenderOutcome } from '../types.js';

import type { Params } from './params.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * GET /v2/schedules/events/. With EventId: that one event (an empty list when unknown or
 * cancelled). Otherwise one of ScheduleId, EventYear, StartDate+EndDate, StartDate+FutureCount
 * or PastCount is required, as the vendor's page says; filters combine.
 *
 * FutureCount/PastCount count from an anchor, StartDate when given, else today: the next
 * FutureCount events on or after it, and the last PastCount before it. When both are given and
 * one side runs short, the other side makes up the difference (the vendor: it "still tries to
 * return FutureCount + PastCount events in total"). With counts, EndDate is not applied.
 */

type EventWire = WireOf<typeof scheduleEvent>;
const KEY = 'ScheduleEvents';

export function renderEvent(wire: Wire, event: number, includeClass: boolean): EventWire {
  const { model } = wire.ctx;
  const e = item(model.events, event);
  const rendered: EventWire = {
    EventId: wire.id(ID.event, e.id),
    EventDate: usDateTime(e.day, e.minutes),
    EventName: e.name,
    EventDescription: e.description,
  };
  if (includeClass) {
    rendered.Classes = eventClassesOf(wire.ctx.model, event).map((ec) => {
      const klass = item(model.classes, at(model.eventClasses.cls, ec));
      return {
        ClassId: wire.id(ID.class, klass.id),
        ClassName: klass.name,
        ClassNameOverride: item(model.eventClasses.override, ec),
      };
    });
  }
  return rendered;
}

function aroundAnchor(ctx: WorldContext, events: number[], anchor: number, future: number, past: number): number[] {
  const day = (e: number) => item(ctx.model.events, e).day;
  const after = events.filter((e) => day(e) >= anchor);
  const before = events.filter((e) => day(e) < anchor);
  let f = Math.min(future, after.length);
  let p = Math.min(past, before.length);
  if (future > 0 && past > 0) {
    f = Math.min(after.length, future + past - p);
    p = Math.min(before.length, future + past - f);
  }
  return [...before.slice(before.length - p), ...after.slice(0, f)];
}

export function renderEvents(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const includeClass = params.bool('IncludeClass', true);
  const eventId = params.positive('EventId');
  if (eventId !== undefined) {
    const e = liveEvent(ctx, eventId);
    return ok(KEY, e === undefined ? [] : [renderEvent(wire, e, includeClass)]);
  }
  const scheduleId = params.positive('ScheduleId');
  const year = params.positive('EventYear');
  const start = params.date('StartDate');
  const end = params.date('EndDate');
  const future = params.positive('FutureCount') ?? 0;
  const past = params.positive('PastCount') ?? 0;
  const anchored = start !== undefined && (end !== undefined || future > 0);
  if (scheduleId === undefined && year === undefined && !anchored && past === 0) {
    return missing(KEY, 'give EventId, ScheduleId, EventYear, StartDate+EndDate, StartDate+FutureCount or PastCount');
  }

  let events: number[];
  if (scheduleId !== undefined) {
    const s = ctx.model.scheduleById.get(scheduleId);
    events = s === undefined ? [] : liveEventsOf(ctx, s);
  } else {
    events = ctx.model.events.map((_, i) => i).filter((e) => isLive(ctx, e));
  }
  const day = (e: number) => item(ctx.model.events, e).day;
  if (year !== undefined) events = events.filter((e) => yearOf(day(e)) === year);
  if (future > 0 || past > 0) {
    events = aroundAnchor(ctx, events, start ?? ctx.today, future, past);
  } else {
    if (start !== undefined) events = events.filter((e) => day(e) >= start);
    if (end !== undefined) events = events.filter((e) => day(e) <= end);
  }
  return ok(KEY, events.map((e) => renderEvent(wire, e, includeClass)));
}
