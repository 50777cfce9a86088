import { z } from 'zod';

import { id, optIndexedText, optText } from './primitives.js';

/**
 * The Driver object, as every endpoint nests it: a one-element array under `Driver`.
 * Field names are seen in client code reading /v2/points/ and /v2/schedules/results/.
 * DriverId is not seen in results responses; it is optional here so a result row without it
 * still loads (with a null driver_id), while the drivers table only takes rows that have one.
 */
export const driver = z.looseObject({
  DriverId: id.optional(),
  DriverFName: optText,
  // drivers.last_name carries a btree index (drivers_last_name_idx).
  DriverLName: optIndexedText,
  DriverSuffix: optText,
  DriverCity: optText,
  DriverState: optText,
  DriverCountry: optText,
});

/** `Driver: [ {...} ]`; pitwall reads the first element, as the known clients do. */
export const driverList = z.array(driver).optional();

export type DriverWire = z.input<typeof driver>;
export type Driver = z.output<typeof driver>;
