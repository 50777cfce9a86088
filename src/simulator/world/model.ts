import type { Scale } from './types.js';

/**
 * The world as generated: plain records for the few thousand schedules, events, classes and
 * drivers, and column-wise typed arrays for the up to millions of event classes, races and
 * result rows (a row costs 9 bytes instead of a ~200-byte object, and nothing is pre-rendered).
 *
 * Indexes, not ids, link the records: `EventRec.ecStart` points into `eventClasses`,
 * `eventClasses.raceStart` into `races`, `races.rowStart` into `rows`. Each event's event
 * classes, each event class's races and each race's rows are contiguous, so one event's data is
 * a slice and rendering it costs only its own size.
 */

export interface ClassRec {
  id: number;
  name: string;
}

/** Mutable: `renameDriver` edits the names in place. Empty text is "" (the wire's "no value"). */
export interface DriverRec {
  id: number;
  firstName: string;
  lastName: string;
  suffix: string;
  city: string;
  state: string;
  country: string;
}

export interface ScheduleRec {
  id: number;
  name: string;
  desc: string;
  year: number;
  /** Carries points: listed by /v2/points/schedules/ and has standings. */
  points: boolean;
  /** Event indexes in date order (cancelled ones included; filters skip them). */
  events: number[];
}

export type EventKind = 'weekly' | 'speedweek' | 'special';

export interface EventRec {
  id: number;
  /** Days since 1970-01-01. */
  day: number;
  /** Minutes after midnight of the advertised start; 0 when only the date is published. */
  minutes: number;
  name: string;
  description: string;
  kind: EventKind;
  /** Schedule indexes, ascending; two for a night that counts in two schedules. */
  schedules: number[];
  ecStart: number;
  ecCount: number;
}

/** One class at one event. Its races are heats 1..n then the feature, in that order. */
export interface EventClassTable {
  cls: Int32Array;
  /** ClassNameOverride, "" when the class runs under its own name. */
  override: string[];
  raceStart: Int32Array;
  raceCount: Uint8Array;
}

export interface RaceTable {
  /** Heat number, or 0 for the feature. */
  heat: Uint8Array;
  laps: Uint8Array;
  rowStart: Int32Array;
  rowCount: Uint8Array;
}

/** Result rows, stored in the order the upstream lists them (finish order as generated). */
export interface RowTable {
  driver: Int32Array;
  finish: Uint8Array;
  start: Uint8Array;
  /** Index into `WorldModel.carNumbers`. */
  car: Uint16Array;
  flags: Uint8Array;
  /**
   * What a row's quirk choices hash (see render/wire.ts). Absent when the simulator serves one
   * site, whose row index is the key, as it always was. Of several sites, a hash of the row's
   * upstream identity (event, class, race, row): a series site's tour night is also in its
   * track site's world, at another index, and must render alike in both.
   */
  quirkKey?: Uint32Array;
}

export const FLAG = { dnf: 1, dns: 2, dq: 4 } as const;

export interface WorldModel {
  seed: number;
  scale: Scale;
  years: number[];
  classes: ClassRec[];
  drivers: DriverRec[];
  schedules: ScheduleRec[];
  /**
   * In date and start order, then by id. A site's own ids ascend with that order; a series
   * site's tour nights keep their track site's ids (generate/series.ts) wherever they land.
   */
  events: EventRec[];
  eventClasses: EventClassTable;
  races: RaceTable;
  rows: RowTable;
  /** Interned car numbers: text, because "00", "0", "7x" and "21A" are all different cars. */
  carNumbers: string[];
  carNumberIndex: Map<string, number>;
  eventById: Map<number, number>;
  scheduleById: Map<number, number>;
  classById: Map<number, number>;
  driverById: Map<number, number>;
}

export const FEATURE_NAME = 'A-Main';

/** DriverName: "First Last", with the suffix when there is one ("Bobby Pierce Jr."), as results pages print it. */
export function displayName(d: DriverRec): string {
  return [d.firstName, d.lastName, d.suffix].filter((part) => part !== '').join(' ');
}

export function raceName(model: WorldModel, race: number): string {
  const heat = model.races.heat[race] ?? 0;
  return heat === 0 ? FEATURE_NAME : `Heat ${heat}`;
}

/** The feature is always the last race of its event class. */
export function featureRace(model: WorldModel, ec: number): number {
  return (model.eventClasses.raceStart[ec] ?? 0) + (model.eventClasses.raceCount[ec] ?? 1) - 1;
}

/** The event classes of one event, as indexes into `eventClasses`. */
export function eventClassesOf(model: WorldModel, event: number): number[] {
  const rec = item(model.events, event);
  return Array.from({ length: rec.ecCount }, (_, i) => rec.ecStart + i);
}

export function racesOf(model: WorldModel, ec: number): number[] {
  const start = at(model.eventClasses.raceStart, ec);
  return Array.from({ length: at(model.eventClasses.raceCount, ec) }, (_, i) => start + i);
}

export function rowsOf(model: WorldModel, race: number): number[] {
  const start = at(model.races.rowStart, race);
  return Array.from({ length: at(model.races.rowCount, race) }, (_, i) => start + i);
}

/** The result rows of one event class: [first, end), since its races' rows are contiguous. */
export function eventClassRows(model: WorldModel, ec: number): [first: number, end: number] {
  const firstRace = at(model.eventClasses.raceStart, ec);
  const lastRace = firstRace + at(model.eventClasses.raceCount, ec) - 1;
  return [at(model.races.rowStart, firstRace), at(model.races.rowStart, lastRace) + at(model.races.rowCount, lastRace)];
}

export function internCarNumber(model: Pick<WorldModel, 'carNumbers' | 'carNumberIndex'>, car: string): number {
  let index = model.carNumberIndex.get(car);
  if (index === undefined) {
    index = model.carNumbers.length;
    if (index > 0xffff) throw new Error('too many distinct car numbers for the row table');
    model.carNumbers.push(car);
    model.carNumberIndex.set(car, index);
  }
  return index;
}

/** Typed-array reads with the bounds check the strict config asks for, in one place. */
export function at(array: ArrayLike<number>, index: number): number {
  const value = array[index];
  if (value === undefined) throw new Error(`index ${index} out of range`);
  return value;
}

export function item<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`index ${index} out of range`);
  return value;
}
