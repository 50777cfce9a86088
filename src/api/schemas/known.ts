import { z } from 'zod';

import { driverList } from './driver.js';
import { carNumber, flag, id, optDecimal, optInt, optText, optUsDateTime } from './primitives.js';

/**
 * Shapes seen in the specification, the vendor's documentation sample, or client code that
 * parses real responses (see shared/api-reference.md). Each level that carries a key is its own
 * schema, so a bad item is rejected alone and its siblings still load. The `*Full` schemas
 * compose the levels into a whole item, used to type what the simulator renders.
 */

/** GET /v2/schedules/ → `Schedules[]` (specification). */
export const schedule = z.looseObject({
  ScheduleId: id,
  ScheduleName: optText,
  ScheduleDesc: optText,
  ScheduleYear: optInt,
  EventCount: optInt,
});

/** GET /v2/schedules/events/ → `ScheduleEvents[].Classes[]` (client code). */
export const eventClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  ClassNameOverride: optText,
});

/** GET /v2/schedules/events/ → `ScheduleEvents[]` (documentation sample and client code). */
export const scheduleEvent = z.looseObject({
  EventId: id,
  EventDate: optUsDateTime,
  EventName: optText,
  EventDescription: optText,
  Classes: z.array(z.unknown()).optional(),
});
export const scheduleEventFull = scheduleEvent.extend({ Classes: z.array(eventClass).optional() });

/** GET /v2/schedules/results/ → `Classes[].Races[].Results[]` (client code). */
export const resultRow = z.looseObject({
  ResultPlace: optInt,
  ResultStart: optInt,
  ResultCarNum: carNumber,
  ResultDNF: flag,
  ResultDNS: flag,
  ResultDQ: flag,
  Driver: driverList,
  DriverName: optText,
});

export const resultRace = z.looseObject({
  RaceName: optText,
  RaceLaps: optInt,
  Results: z.array(z.unknown()).optional(),
});
export const resultRaceFull = resultRace.extend({ Results: z.array(resultRow) });

/** ClassId on results classes is inferred (the events endpoint carries it); pitwall needs it as a key. */
export const resultClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  Races: z.array(z.unknown()).optional(),
});
export const resultClassFull = resultClass.extend({ Races: z.array(resultRaceFull) });

/** GET /v2/points/ → top-level fields beside `Points[]` (client code). */
export const pointsHeader = z.looseObject({
  ClassId: id,
  ClassName: optText,
  ClassNameOverride: optText,
  PointsAsOf: optUsDateTime,
});

/** GET /v2/points/ → `Points[]` (client code). PointTotal is a string that may hold decimals. */
export const pointsRow = z.looseObject({
  Position: optInt,
  CarNum: carNumber,
  PointTotal: optDecimal,
  Wins: optInt,
  Top5: optInt,
  Top10: optInt,
  Features: optInt,
  Driver: driverList,
});
