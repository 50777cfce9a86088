import { type WorldContext, isScored, liveEventsOf, memo } from '../context.js';
import { at, eventClassesOf, item, racesOf, rowsOf } from '../model.js';
import { countsForFinishStats, halfPointsFor, isFeatureStart } from '../points.js';
import { TAG, hash01 } from '../rng.js';

/** Point standings per (points schedule, class), by the rule in points.ts. */

export interface Standing {
  driver: number;
  position: number;
  halfPoints: number;
  wins: number;
  top5: number;
  top10: number;
  features: number;
  /** Car number index of the driver's most recent row in the class within the schedule. */
  car: number;
}

/** Classes of a points schedule: every class run at any of its (live) events, by class index. */
export function pointClasses(ctx: WorldContext, schedule: number): number[] {
  return memo(ctx, `pointClasses:${schedule}`, () => {
    if (!item(ctx.model.schedules, schedule).points) return [];
    const classes = new Set<number>();
    for (const e of liveEventsOf(ctx, schedule)) {
      for (const ec of eventClassesOf(ctx.model, e)) classes.add(at(ctx.model.eventClasses.cls, ec));
    }
    return [...classes].sort((a, b) => a - b);
  });
}

/** The date of the schedule's latest event that has run, or undefined before its first. */
export function pointsAsOf(ctx: WorldContext, schedule: number): number | undefined {
  const scored = item(ctx.model.schedules, schedule).events.filter((e) => isScored(ctx, e));
  const last = scored[scored.length - 1];
  return last === undefined ? undefined : item(ctx.model.events, last).day;
}

/** A points schedule may run a class under its own title ("Late Models Track Championship"). */
export function pointClassOverride(ctx: WorldContext, schedule: number, cls: number): string {
  const klass = item(ctx.model.classes, cls);
  return hash01(ctx.model.seed, TAG.pointClassOverride, item(ctx.model.schedules, schedule).id, klass.id) < 0.1
    ? `${klass.name} Track Championship`
    : '';
}

export function standings(ctx: WorldContext, schedule: number, cls: number): Standing[] {
  return memo(ctx, `standings:${schedule}:${cls}`, () => {
    const { model } = ctx;
    if (!item(model.schedules, schedule).points) return [];
    const byDriver = new Map<number, Standing>();
    for (const e of item(model.schedules, schedule).events) {
      if (!isScored(ctx, e)) continue;
      for (const ec of eventClassesOf(model, e)) {
        if (at(model.eventClasses.cls, ec) !== cls) continue;
        for (const race of racesOf(model, ec)) {
          const feature = at(model.races.heat, race) === 0;
          const cars = at(model.races.rowCount, race);
          for (const row of rowsOf(model, race)) {
            const driver = at(model.rows.driver, row);
            const finish = at(model.rows.finish, row);
            const flags = at(model.rows.flags, row);
            let s = byDriver.get(driver);
            if (!s) {
              s = { driver, position: 0, halfPoints: 0, wins: 0, top5: 0, top10: 0, features: 0, car: 0 };
              byDriver.set(driver, s);
            }
            s.halfPoints += halfPointsFor(feature, finish, cars, flags);
            // Events, races and rows are walked in date and running order: the last car wins.
            s.car = at(model.rows.car, row);
            if (!feature) continue;
            if (isFeatureStart(flags)) s.features++;
            if (!countsForFinishStats(flags)) continue;
            if (finish === 1) s.wins++;
            if (finish <= 5) s.top5++;
            if (finish <= 10) s.top10++;
          }
        }
      }
    }
    const table = [...byDriver.values()].sort(
      (a, b) =>
        b.halfPoints - a.halfPoints ||
        b.wins - a.wins ||
        item(model.drivers, a.driver).id - item(model.drivers, b.driver).id,
    );
    table.forEach((s, i) => (s.position = i + 1));
    return table;
  });
}
