import { z } from 'zod';

import { id, optIndexedText, optText } from '../api/schemas/primitives.js';
import type { WarehouseTableName } from '../db/schema/mrp.js';

/** A step into a JSON value: an object's field or an array's index. */
export type PathSegment = string | number;

/**
 * An object nested in an item whose own fields feed another table: `Driver: [{...}]` feeds
 * `drivers`. A bad `DriverFName` leaves NULL in `drivers.first_name`, and is recorded against it.
 */
export interface NestedPart {
  /** The item's field holding a list of such objects. */
  readonly field: string;
  readonly table: WarehouseTableName;
  /** Key columns of `table`, as the field of each object that holds the value. */
  readonly key: Readonly<Record<string, string>>;
}

/**
 * The Driver object, as every endpoint nests it: a one-element array under `Driver`. Field
 * names are seen in client code reading /v2/points/ and /v2/schedules/results/. DriverId is not
 * seen in results responses; it is optional here so a result row without it still loads (with a
 * null driver_id), while the drivers table only takes rows that have one.
 */
const LIST = 'Driver';
const KEY = 'DriverId';
/** drivers columns → the Driver object's field that fills each. */
export const DRIVER_COLUMNS = {
  first_name: 'DriverFName',
  last_name: 'DriverLName',
  suffix: 'DriverSuffix',
  city: 'DriverCity',
  state: 'DriverState',
  country: 'DriverCountry',
} as const;

export const driver = z.looseObject({
  [KEY]: id.optional(),
  [DRIVER_COLUMNS.first_name]: optText,
  // drivers.last_name carries a btree index (drivers_last_name_idx).
  [DRIVER_COLUMNS.last_name]: optIndexedText,
  [DRIVER_COLUMNS.suffix]: optText,
  [DRIVER_COLUMNS.city]: optText,
  [DRIVER_COLUMNS.state]: optText,
  [DRIVER_COLUMNS.country]: optText,
});

/** `Driver: [ {...} ]`; pitwall reads the first element, as the known clients do. */
export const driverList = z.array(driver).optional();

export type DriverWire = z.input<typeof driver>;
export type Driver = z.output<typeof driver>;

export const DRIVER_PART: NestedPart = { field: LIST, table: 'drivers', key: { driver_id: KEY } };
/** Where an item's driver id sits: the first driver of its list. */
export const DRIVER_ID: readonly PathSegment[] = [LIST, 0, KEY];
export const DRIVER_LIST = LIST;

/** The id of a parsed driver, if it has one. */
export const driverIdOf = (d: Driver | null | undefined): number | undefined => d?.[KEY];

/** A `drivers` row from a parsed driver that has an id, its raw the driver object as received. */
export function driverRow(d: Driver, raw: unknown): Record<string, unknown> & { raw: unknown } {
  const row: Record<string, unknown> & { raw: unknown } = { driver_id: d[KEY], raw };
  for (const [column, wire] of Object.entries(DRIVER_COLUMNS)) row[column] = d[wire];
  return row;
}
