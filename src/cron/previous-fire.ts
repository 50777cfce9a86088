import { parse } from 'node-cron';

import { resolveCronNickname } from './validate.js';
import { instantsOf, wallTime, type WallTime } from './zoned-time.js';

/** node-cron looks this far ahead for a next run; a schedule quieter than that never fires. */
const SEARCH_DAYS = 366 * 100;
const DAY_MS = 86_400_000;

type DayToken = number | string;

const lastDayOfMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();
const weekdayOf = (year: number, month: number, day: number) => new Date(Date.UTC(year, month - 1, day)).getUTCDay();

/** node-cron's nearest weekday (`15W`): a Saturday moves to Friday, a Sunday to Monday, within the month. */
function nearestWeekday(year: number, month: number, target: number): number {
  const last = lastDayOfMonth(year, month);
  if (target < 1 || target > last) return -1;
  const weekday = weekdayOf(year, month, target);
  if (weekday === 6) return target === 1 ? 3 : target - 1;
  if (weekday === 0) return target === last ? target - 2 : target + 1;
  return target;
}

/** Day-of-month values as node-cron's parse gives them: numbers, L, L-n, nW, LW. */
function matchesDay(tokens: readonly DayToken[], year: number, month: number, day: number): boolean {
  const last = lastDayOfMonth(year, month);
  return tokens.some((t) => {
    if (t === day) return true;
    if (typeof t !== 'string') return false;
    if (t === 'L') return day === last;
    const w = /^(\d{1,2}|L)W$/.exec(t);
    if (w) return nearestWeekday(year, month, w[1] === 'L' ? last : Number(w[1])) === day;
    const before = /^L-(\d{1,2})$/.exec(t);
    return before !== null && last - Number(before[1]) === day;
  });
}

/** Weekday values as node-cron's parse gives them: numbers 0-6, nL (last of the month), n#m (m-th). */
function matchesWeekday(tokens: readonly DayToken[], year: number, month: number, day: number): boolean {
  const weekday = weekdayOf(year, month, day);
  return tokens.some((t) => {
    if (t === weekday) return true;
    if (typeof t !== 'string') return false;
    const lastOf = /^([0-7])L$/i.exec(t);
    if (lastOf) return Number(lastOf[1]) % 7 === weekday && day + 7 > lastDayOfMonth(year, month);
    const nth = /^([0-7])#([1-5])$/.exec(t);
    return nth !== null && Number(nth[1]) % 7 === weekday && Math.floor((day - 1) / 7) + 1 === Number(nth[2]);
  });
}

const wallMs = (t: WallTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
const descending = (values: readonly number[]) => [...values].sort((a, b) => b - a);

/**
 * The latest instant at or before `now` at which node-cron would have fired `expression` in
 * `timeZone`, or null when it has not fired in the last hundred years. Matches the way node-cron
 * reads an expression: day of month and weekday must both match, a wall time skipped by a
 * spring-forward change does not fire, one repeated by a fall-back change fires at either instant.
 * `expression` must have passed cronProblem().
 */
export function previousFire(expression: string, timeZone: string, now: Date): Date | null {
  const fields = parse(resolveCronNickname(expression));
  const [hours, minutes, seconds] = [descending(fields.hour), descending(fields.minute), descending(fields.second)];
  const nowMs = now.getTime();
  const nowWall = wallTime(now, timeZone);
  // How far a wall time near `now` can be from its instant's reading: non-zero only around an
  // offset change, where a later wall time may still be an earlier instant.
  const slackMs = Math.abs(
    wallMs(wallTime(new Date(nowMs - DAY_MS), timeZone)) - (nowMs - DAY_MS) - (wallMs(wallTime(new Date(nowMs + DAY_MS), timeZone)) - (nowMs + DAY_MS)),
  );
  const start = Date.UTC(nowWall.year, nowWall.month - 1, nowWall.day);
  for (let i = 0; i < SEARCH_DAYS; i++) {
    const date = new Date(start - i * DAY_MS);
    const [year, month, day] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!fields.month.includes(month) || !matchesDay(fields.dayOfMonth, year, month, day)) continue;
    if (!matchesWeekday(fields.dayOfWeek, year, month, day)) continue;
    let best: Date | null = null;
    let bestWallMs = 0;
    for (const hour of hours) {
      for (const minute of minutes) {
        for (const second of seconds) {
          const wall: WallTime = { year, month, day, hour, minute, second };
          const ms = wallMs(wall);
          if (i === 0 && ms > wallMs(nowWall) + slackMs) continue;
          // Wall times further below the best than any offset change can reorder are earlier instants.
          if (best && ms < bestWallMs - slackMs) return best;
          for (const instant of instantsOf(wall, timeZone)) {
            if (instant.getTime() <= nowMs && (!best || instant > best)) [best, bestWallMs] = [instant, ms];
          }
          if (best && slackMs === 0) return best;
        }
      }
    }
    if (best) return best;
  }
  return null;
}
