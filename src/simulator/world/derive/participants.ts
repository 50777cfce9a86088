import type { WorldContext } from '../context.js';
import { FLAG, at, racesOf, rowsOf } from '../model.js';

/**
 * Who raced (or, for a future event, will race) one class at one event, and what each gained
 * on track. Both read the event class's rows alone, so they cost the size of that class.
 */

export interface Entry {
  driver: number;
  /** Car number index: the car of the driver's last race that night. */
  car: number;
}

export interface Passes extends Entry {
  /** Races started: rows that are not DNS. */
  races: number;
  /** Sum over races of max(0, start - finish), leaving out DNS and DQ rows. */
  carsPassed: number;
}

export function passesOf(ctx: WorldContext, ec: number): Passes[] {
  const { rows } = ctx.model;
  const byDriver = new Map<number, Passes>();
  for (const race of racesOf(ctx.model, ec)) {
    for (const row of rowsOf(ctx.model, race)) {
      const driver = at(rows.driver, row);
      let p = byDriver.get(driver);
      if (!p) {
        p = { driver, car: 0, races: 0, carsPassed: 0 };
        byDriver.set(driver, p);
      }
      p.car = at(rows.car, row);
      const flags = at(rows.flags, row);
      if (flags & FLAG.dns) continue;
      p.races++;
      if (!(flags & FLAG.dq)) p.carsPassed += Math.max(0, at(rows.start, row) - at(rows.finish, row));
    }
  }
  return [...byDriver.values()];
}

/** Splits a car number into its number and the rest, so "7" < "7x" < "10" < "21A". */
function carKey(car: string): [number, string] {
  const m = /^(\d*)(.*)$/.exec(car);
  const digits = m?.[1] ?? '';
  // "0" and "00" sort before "1", "00" first (it is the lower number on a scoreboard).
  return [digits === '' ? Number.MAX_SAFE_INTEGER : Number(digits) - digits.length / 10, m?.[2] ?? ''];
}

export function compareCarNumbers(a: string, b: string): number {
  const [na, ra] = carKey(a);
  const [nb, rb] = carKey(b);
  return na - nb || (ra < rb ? -1 : ra > rb ? 1 : 0);
}

/** The entry list of one class: every driver in its races, by car number. */
export function entriesOf(ctx: WorldContext, ec: number): Entry[] {
  const { carNumbers } = ctx.model;
  const entries = passesOf(ctx, ec).map(({ driver, car }) => ({ driver, car }));
  return entries.sort(
    (a, b) => compareCarNumbers(carNumbers[a.car] ?? '', carNumbers[b.car] ?? '') || a.driver - b.driver,
  );
}
