import { type WorldContext, isScored, liveEvent } from '../context.js';
import { at, eventClassesOf, item } from '../model.js';

import type { Params } from './params.js';

/**
 * The event classes one per-event request covers: EventId (required by the caller) and the
 * optional ClassId. `scoredOnly` leaves out events that have not run yet (results, lineups);
 * the entry list takes future events too.
 */
export function eventScope(ctx: WorldContext, params: Params, scoredOnly: boolean): number[] | 'missing' {
  const eventId = params.positive('EventId');
  if (eventId === undefined) return 'missing';
  const e = liveEvent(ctx, eventId);
  if (e === undefined || (scoredOnly && !isScored(ctx, e))) return [];
  const classId = params.positive('ClassId');
  return eventClassesOf(ctx.model, e).filter(
    (ec) => classId === undefined || item(ctx.model.classes, at(ctx.model.eventClasses.cls, ec)).id === classId,
  );
}
