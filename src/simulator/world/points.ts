import { FLAG } from './model.js';

/**
 * The points rule of every points schedule in the simulated world, in half points so sums stay
 * exact integers (a total of 287 half points is rendered "143.5").
 *
 * - Feature: 1st 100, then 4 fewer per place (96, 92, ...), never below 30 for a finisher
 *   classified 18th or lower.
 * - Heat: 1.5 points per car classified at or behind you: in an 8-car heat 1st earns 12,
 *   2nd 10.5, ..., 8th 1.5. Hence the half points.
 * - A DQ or a DNS earns nothing in that race; a DNF is scored by where it was classified.
 *
 * A driver's standing in (schedule, class) sums these over every race of that class at every
 * event of the schedule that has run (dated today or earlier, not cancelled). Wins, Top5 and
 * Top10 count feature finishes (not DQ, not DNS); Features counts feature starts (not DNS).
 * Ranking: points desc, then wins desc, then driver id asc.
 */

export const FEATURE_WIN_POINTS = 100;
const FEATURE_STEP = 4;
const FEATURE_FLOOR = 30;
const HEAT_POINTS_PER_CAR = 1.5;

/** Points for one result row, in half points. `cars` is how many rows the race has. */
export function halfPointsFor(feature: boolean, finish: number, cars: number, flags: number): number {
  if (flags & (FLAG.dq | FLAG.dns) || finish < 1) return 0;
  if (feature) return 2 * Math.max(FEATURE_WIN_POINTS - FEATURE_STEP * (finish - 1), FEATURE_FLOOR);
  return Math.max(0, 2 * HEAT_POINTS_PER_CAR * (cars - finish + 1));
}

/** Whether a feature row counts as a start (Features) and toward Wins/Top5/Top10. */
export function isFeatureStart(flags: number): boolean {
  return (flags & FLAG.dns) === 0;
}

export function countsForFinishStats(flags: number): boolean {
  return (flags & (FLAG.dns | FLAG.dq)) === 0;
}

/** Half points as the warehouse writes a numeric: "143", "143.5". */
export function formatHalfPoints(half: number): string {
  return half % 2 === 0 ? String(half / 2) : `${(half - 1) / 2}.5`;
}
