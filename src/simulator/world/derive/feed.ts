import { type WorldContext, scoredNewestFirst } from '../context.js';
import { at, featureRace } from '../model.js';

/** EventCount when a feed request gives none (the SDK's default). */
export const FEED_DEFAULT_EVENTS = 5;

/** The latest `count` events that have results, newest first. */
export function feedEvents(ctx: WorldContext, count: number): number[] {
  const events: number[] = [];
  for (const e of scoredNewestFirst(ctx)) {
    if (events.length >= count) break;
    events.push(e);
  }
  return events;
}

/**
 * The rows of one class's feature by finish, as the feed lists them. Rows are stored in finish
 * order; sorting (stable) only matters after a steward's correction changed a finish.
 */
export function featureByFinish(ctx: WorldContext, ec: number): number[] {
  const race = featureRace(ctx.model, ec);
  const first = at(ctx.model.races.rowStart, race);
  const rows = Array.from({ length: at(ctx.model.races.rowCount, race) }, (_, i) => first + i);
  return rows.sort((a, b) => at(ctx.model.rows.finish, a) - at(ctx.model.rows.finish, b));
}
