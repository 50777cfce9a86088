import { type WorldContext, isScored, memo } from '../context.js';
import { yearOf } from '../dates.js';
import { at, eventClassesOf, featureRace } from '../model.js';
import { countsForFinishStats, isFeatureStart } from '../points.js';

/**
 * Season statistics per (driver, class, year) over every event that has run, from feature
 * rows only: Starts are feature starts (not DNS); Wins, Top5 and Top10 leave out DQs; AvgStart
 * and AvgFinish average the started features. A driver whose every feature was a DNS still
 * has an item, with no averages.
 */

export interface DriverStat {
  driver: number;
  cls: number;
  year: number;
  starts: number;
  wins: number;
  top5: number;
  top10: number;
  /** Averages in hundredths, rounded half up; undefined without a start. */
  avgStart: number | undefined;
  avgFinish: number | undefined;
}

interface Tally {
  stat: DriverStat;
  startSum: number;
  finishSum: number;
}

/** Rounds sum/count to hundredths, half up, in integer arithmetic (no binary-float drift). */
export function hundredths(sum: number, count: number): number | undefined {
  return count === 0 ? undefined : Math.floor((200 * sum + count) / (2 * count));
}

/** "5.25", "7.00" with `fixed`, else the warehouse's form without trailing zeros: "5.25", "7". */
export function formatHundredths(value: number, fixed: boolean): string {
  const text = `${Math.floor(value / 100)}.${String(value % 100).padStart(2, '0')}`;
  return fixed ? text : text.replace(/\.?0+$/, '');
}

/** Sorted by driver id, class id, year (driver and class indexes follow their ids). */
export function driverStats(ctx: WorldContext): DriverStat[] {
  return memo(ctx, 'driverStats', () => {
    const { model } = ctx;
    const tallies = new Map<string, Tally>();
    model.events.forEach((event, e) => {
      if (!isScored(ctx, e)) return;
      const year = yearOf(event.day);
      for (const ec of eventClassesOf(model, e)) {
        const cls = at(model.eventClasses.cls, ec);
        const race = featureRace(model, ec);
        const first = at(model.races.rowStart, race);
        for (let row = first; row < first + at(model.races.rowCount, race); row++) {
          const driver = at(model.rows.driver, row);
          const key = `${driver}:${cls}:${year}`;
          let t = tallies.get(key);
          if (!t) {
            const stat = { driver, cls, year, starts: 0, wins: 0, top5: 0, top10: 0, avgStart: undefined, avgFinish: undefined };
            t = { stat, startSum: 0, finishSum: 0 };
            tallies.set(key, t);
          }
          const flags = at(model.rows.flags, row);
          const finish = at(model.rows.finish, row);
          if (!isFeatureStart(flags)) continue;
          t.stat.starts++;
          t.startSum += at(model.rows.start, row);
          t.finishSum += finish;
          if (!countsForFinishStats(flags)) continue;
          if (finish === 1) t.stat.wins++;
          if (finish <= 5) t.stat.top5++;
          if (finish <= 10) t.stat.top10++;
        }
      }
    });
    return [...tallies.values()]
      .map(({ stat, startSum, finishSum }) => ({
        ...stat,
        avgStart: hundredths(startSum, stat.starts),
        avgFinish: hundredths(finishSum, stat.starts),
      }))
      .sort((a, b) => a.driver - b.driver || a.cls - b.cls || a.year - b.year);
  });
}
