import { z } from 'zod';

import { driverList } from './driver.js';
import { carNumber, id, optDecimal, optInt, optText, optUsDateTime } from './primitives.js';

/**
 * ASSUMED SHAPES. No public source shows these responses (shared/api-reference.md §5), so they
 * are designed in the API's own style: PascalCase fields, `Driver: [ {...} ]`, US dates, a named
 * array under the envelope. This file is the one place to edit when real samples appear; the
 * simulator's renderers are typed against these schemas, so the compiler points at every place
 * that has to follow.
 *
 * Array keys (also assumed) are declared beside each schema.
 */

/** GET /v2/schedules/years/ and GET /v2/points/years/ → `Years[]`. */
export const YEARS_KEY = 'Years';
export const yearItem = z.looseObject({
  ScheduleYear: id,
  ScheduleCount: optInt,
});

/** GET /v2/schedules/lineups/?EventId= → `Classes[].Races[].Lineup[]`. */
export const LINEUPS_KEY = 'Classes';
export const lineupEntry = z.looseObject({
  StartPosition: id,
  CarNum: carNumber,
  Driver: driverList,
});
export const lineupRace = z.looseObject({
  RaceName: optText,
  Lineup: z.array(z.unknown()).optional(),
});
export const lineupRaceFull = lineupRace.extend({ Lineup: z.array(lineupEntry) });
export const lineupClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  Races: z.array(z.unknown()).optional(),
});
export const lineupClassFull = lineupClass.extend({ Races: z.array(lineupRaceFull) });

/** GET /v2/schedules/entryList/?EventId= → `Classes[].Entries[]`. */
export const ENTRY_LIST_KEY = 'Classes';
export const entry = z.looseObject({
  CarNum: carNumber,
  Driver: driverList,
});
export const entryClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  Entries: z.array(z.unknown()).optional(),
});
export const entryClassFull = entryClass.extend({ Entries: z.array(entry) });

/**
 * GET /v2/schedules/results/feed/ → `Events[].Classes[].Results[]`: the latest events with
 * results, and for each class the top finishers of its last race (the feature).
 */
export const FEED_KEY = 'Events';
export const feedResult = z.looseObject({
  ResultPlace: id,
  ResultCarNum: carNumber,
  Driver: driverList,
});
export const feedClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  RaceName: optText,
  Results: z.array(z.unknown()).optional(),
});
export const feedClassFull = feedClass.extend({ Results: z.array(feedResult) });
export const feedEvent = z.looseObject({
  EventId: id,
  EventDate: optUsDateTime,
  EventName: optText,
  Classes: z.array(z.unknown()).optional(),
});
export const feedEventFull = feedEvent.extend({ Classes: z.array(feedClassFull) });

/** GET /v2/schedules/driverStats/ → `DriverStats[]`: one item per driver, class and season. */
export const DRIVER_STATS_KEY = 'DriverStats';
export const driverStat = z.looseObject({
  ScheduleYear: id,
  ClassId: id,
  ClassName: optText,
  Driver: driverList,
  Starts: optInt,
  Wins: optInt,
  Top5: optInt,
  Top10: optInt,
  AvgStart: optDecimal,
  AvgFinish: optDecimal,
});

/** GET /v2/schedules/driverPasses/?EventId= → `DriverPasses[]`: one item per driver and class. */
export const DRIVER_PASSES_KEY = 'DriverPasses';
export const driverPass = z.looseObject({
  EventId: id,
  ClassId: id,
  ClassName: optText,
  CarNum: carNumber,
  Driver: driverList,
  Races: optInt,
  CarsPassed: optInt,
});

/** GET /v2/points/schedules/?ScheduleYear= → `Schedules[]`, like /v2/schedules/ with ClassCount. */
export const POINT_SCHEDULES_KEY = 'Schedules';
export const pointSchedule = z.looseObject({
  ScheduleId: id,
  ScheduleName: optText,
  ScheduleDesc: optText,
  ScheduleYear: optInt,
  ClassCount: optInt,
});

/** GET /v2/points/classes/?ScheduleId= → `Classes[]`. */
export const POINT_CLASSES_KEY = 'Classes';
export const pointClass = z.looseObject({
  ClassId: id,
  ClassName: optText,
  ClassNameOverride: optText,
  PointsAsOf: optUsDateTime,
});
