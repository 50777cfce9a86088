import type { ClassRec, DriverRec } from '../model.js';
import {
  CLASS_NAMES,
  FIRST_NAMES,
  LAST_NAMES,
  PLACES,
  SUFFIXES,
  UNICODE_FIRST_NAMES,
  UNICODE_LAST_NAMES,
} from '../names.js';
import { TAG, createRng, hash01, hash32 } from '../rng.js';
import { type ScaleParams, poolSize } from '../scales.js';

/**
 * Classes, drivers, and who is active in which class each season with which car number.
 *
 * Each class keeps a pool of active drivers per season. Between seasons some retire and
 * newcomers fill the gaps; some newcomers are drivers already racing another class (so some
 * drivers race two classes). The first drivers of every class hold the car numbers that trip
 * up naive code ("00" and "0" as different cars, "7x", "21A", "1", "99") and never retire, so
 * every season of every class has them.
 */

const CLASS_ID_BASE = 1000;
const DRIVER_ID_BASE = 10001;
export const LEGEND_NUMBERS = ['00', '0', '7x', '21A', '1', '99'] as const;
const RETIRE_RATE = 0.12;
const CROSSOVER_RATE = 0.12;
const LETTERS = ['x', 'A', 'B', 'j', 's', 'm'] as const;

export interface Roster {
  classes: ClassRec[];
  drivers: DriverRec[];
  /** active[yearIndex][classIndex] = driver indexes. */
  active: number[][][];
  /** carOf[classIndex].get(driverIndex) = car number in that class. */
  carOf: Map<number, string>[];
  /** Legends (holders of LEGEND_NUMBERS), who show up nearly every night. */
  legends: Set<number>;
}

function pickFrom(list: readonly string[], seed: number, driverId: number, field: number): string {
  return list[hash32(seed, TAG.driverName, driverId, field) % list.length] ?? '';
}

/** A driver's name and home town, decided by hashes of the driver id alone. */
export function makeDriver(seed: number, index: number, unicodeRate: number): DriverRec {
  const id = DRIVER_ID_BASE + index;
  const unicode = hash01(seed, TAG.driverName, id, 0) < unicodeRate;
  const which = hash01(seed, TAG.driverName, id, 1);
  const accentedFirst = unicode && which < 0.5;
  const accentedLast = unicode && which >= 0.35;
  const firstName = pickFrom(accentedFirst ? UNICODE_FIRST_NAMES : FIRST_NAMES, seed, id, 2);
  const lastName = pickFrom(accentedLast ? UNICODE_LAST_NAMES : LAST_NAMES, seed, id, 3);
  let suffix = '';
  let roll = hash01(seed, TAG.driverSuffix, id);
  for (const [text, share] of SUFFIXES) {
    if (roll < share) {
      suffix = text;
      break;
    }
    roll -= share;
  }
  const place = PLACES[hash32(seed, TAG.driverPlace, id) % PLACES.length] ?? ['', '', ''];
  return { id, firstName, lastName, suffix, city: place[0], state: place[1], country: place[2] };
}

export function generateRoster(seed: number, params: ScaleParams, years: number, unicodeRate: number): Roster {
  const rng = createRng(hash32(seed, TAG.roster));
  const classes: ClassRec[] = CLASS_NAMES.slice(0, params.classes).map((name, i) => ({
    id: CLASS_ID_BASE + i,
    name,
  }));
  const drivers: DriverRec[] = [];
  const legends = new Set<number>();
  const carOf = classes.map(() => new Map<number, string>());
  const size = poolSize(params);
  const active: number[][][] = [];

  const freshNumber = (taken: Set<string>): string => {
    for (;;) {
      const n = rng.int(2, 98);
      const text = rng.chance(0.2) ? `${n}${rng.pick(LETTERS)}` : String(n);
      if (!taken.has(text) && !(LEGEND_NUMBERS as readonly string[]).includes(text)) return text;
    }
  };

  for (let y = 0; y < years; y++) {
    const season: number[][] = [];
    for (let c = 0; c < classes.length; c++) {
      const cars = carOf[c] ?? new Map<number, string>();
      const previous = active[y - 1]?.[c] ?? [];
      const pool = previous.filter(
        (d) => legends.has(d) || hash01(seed, TAG.roster, d, y * 64 + c) >= RETIRE_RATE,
      );
      const inPool = new Set(pool);
      const taken = new Set(pool.map((d) => cars.get(d) ?? ''));
      while (pool.length < size) {
        let driver: number;
        const legendNumber = y === 0 ? LEGEND_NUMBERS[pool.length] : undefined;
        const elsewhere = season.flat().filter((d) => !inPool.has(d) && !cars.has(d));
        if (legendNumber === undefined && elsewhere.length > 0 && rng.chance(CROSSOVER_RATE)) {
          driver = rng.pick(elsewhere);
        } else {
          driver = drivers.length;
          drivers.push(makeDriver(seed, driver, unicodeRate));
        }
        if (legendNumber !== undefined) legends.add(driver);
        // A driver keeps one number per class for a whole career; nobody rejoins a class they left.
        const car = legendNumber ?? freshNumber(taken);
        cars.set(driver, car);
        taken.add(car);
        pool.push(driver);
        inPool.add(driver);
      }
      season.push(pool);
    }
    active.push(season);
  }
  return { classes, drivers, active, carOf, legends };
}
