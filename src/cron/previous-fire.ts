import { CronExpressionParser } from 'cron-parser';

import { resolveCronNickname } from './validate.js';

/**
 * The latest instant at or before `now` at which `expression` fired in `timeZone`, or null when
 * it never has. cron-parser computes it; cronProblem() admits only the syntax that cron-parser
 * and node-cron (which fires the schedules) read alike, so this is the fire node-cron made: a wall
 * time skipped by a spring-forward change does not fire, one repeated by a fall-back change
 * fires at either instant (test/cron/previous-fire.test.ts holds both to it).
 * `expression` must have passed cronProblem().
 */
export function previousFire(expression: string, timeZone: string, now: Date): Date | null {
  // A worker that takes a thousand sources asks this for each of their schedules within seconds,
  // mostly the same few. An answer holds until the schedule's next fire; it is kept for a second
  // at most, as cron-parser's next() does not return the second instant of a wall time repeated
  // by a fall-back change, which prev() may.
  const key = `${timeZone}\u0000${expression}`;
  const known = lastFires.get(key);
  const at = now.getTime();
  if (known && at >= known.from && at < known.until) return known.fire;
  const fire = searchPrevious(expression, timeZone, now);
  const next = nextAfter(expression, timeZone, now);
  if (lastFires.size >= CACHED_SCHEDULES) lastFires.clear();
  lastFires.set(key, { fire, from: at, until: Math.min(next?.getTime() ?? Infinity, at + KEPT_MS) });
  return fire;
}

/** How long an answer is kept: a start's decisions come within seconds of each other. */
const KEPT_MS = 1_000;
/** Schedules whose last fire is kept: a few per source, and sources mostly share theirs. */
const CACHED_SCHEDULES = 1_000;
const lastFires = new Map<string, { fire: Date | null; from: number; until: number }>();

function searchPrevious(expression: string, timeZone: string, now: Date): Date | null {
  // prev() is strictly before its current date: a millisecond on, a fire at `now` counts.
  const schedule = CronExpressionParser.parse(resolveCronNickname(expression), { tz: timeZone, currentDate: new Date(now.getTime() + 1) });
  try {
    return schedule.prev().toDate();
  } catch {
    // cron-parser throws when its search finds no earlier fire.
    return null;
  }
}

/** The first fire after `now`; null when there is none. */
function nextAfter(expression: string, timeZone: string, now: Date): Date | null {
  const schedule = CronExpressionParser.parse(resolveCronNickname(expression), { tz: timeZone, currentDate: now });
  try {
    return schedule.next().toDate();
  } catch {
    return null;
  }
}
