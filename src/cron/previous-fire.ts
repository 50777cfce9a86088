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
  // prev() is strictly before its current date: a millisecond on, a fire at `now` counts.
  const schedule = CronExpressionParser.parse(resolveCronNickname(expression), { tz: timeZone, currentDate: new Date(now.getTime() + 1) });
  try {
    return schedule.prev().toDate();
  } catch {
    // cron-parser throws when its search finds no earlier fire.
    return null;
  }
}
