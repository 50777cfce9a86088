import { type WorldModel, at, item } from './model.js';

/**
 * The world's mutable state beside the generated model: the clock, cancelled events, and the
 * caches of derived figures. Every mutation clears the caches, so a derived figure is always
 * recomputed from the current model the first time it is asked for afterwards.
 */
export interface WorldContext {
  readonly model: WorldModel;
  /** Today as a day number; events on or before it have been run. */
  today: number;
  /** 1 for a cancelled event (by event index): it has vanished from every response. */
  readonly cancelled: Uint8Array;
  readonly cache: Map<string, unknown>;
}

export function createContext(model: WorldModel, today: number): WorldContext {
  return { model, today, cancelled: new Uint8Array(model.events.length), cache: new Map() };
}

export function memo<T>(ctx: WorldContext, key: string, compute: () => T): T {
  if (ctx.cache.has(key)) return ctx.cache.get(key) as T;
  const value = compute();
  ctx.cache.set(key, value);
  return value;
}

export function invalidate(ctx: WorldContext): void {
  ctx.cache.clear();
}

/** Listed anywhere at all (not cancelled). */
export function isLive(ctx: WorldContext, event: number): boolean {
  return at(ctx.cancelled, event) === 0;
}

/** Has results, lineups, passes and counts for points: live and dated today or earlier. */
export function isScored(ctx: WorldContext, event: number): boolean {
  return isLive(ctx, event) && item(ctx.model.events, event).day <= ctx.today;
}

/** Live events of one schedule, in date order. */
export function liveEventsOf(ctx: WorldContext, schedule: number): number[] {
  return item(ctx.model.schedules, schedule).events.filter((e) => isLive(ctx, e));
}

/** Scored events, newest first (walks back from the end, so asking for a few costs a few). */
export function* scoredNewestFirst(ctx: WorldContext): Generator<number> {
  for (let e = ctx.model.events.length - 1; e >= 0; e--) if (isScored(ctx, e)) yield e;
}

/** The index of a live event by id, or undefined for an unknown or cancelled one. */
export function liveEvent(ctx: WorldContext, eventId: number): number | undefined {
  const e = ctx.model.eventById.get(eventId);
  return e !== undefined && isLive(ctx, e) ? e : undefined;
}
