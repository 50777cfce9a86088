import type { z } from 'zod';

import {
  driverPass,
  driverStat,
  entry,
  entryClass,
  feedClass,
  feedEvent,
  feedResult,
  lineupClass,
  lineupEntry,
  lineupRace,
  pointClass,
  pointSchedule,
  yearItem,
} from '../../api/schemas/assumed.js';
import { eventClass, pointsHeader, pointsRow, resultClass, resultRace, resultRow, schedule, scheduleEvent } from '../../api/schemas/known.js';
import { tableMeta } from '../../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';

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
 * One level of a response (an item of a list, or the envelope) as the collector parses it: its
 * schema, the table its own fields feed, and which of its fields are that table's key. A field
 * that fails its type is dropped (NULL in its column) and recorded, unless it is a key field:
 * only a missing or unusable key rejects the item.
 */
export interface Level<S extends z.ZodObject = z.ZodObject> {
  readonly schema: S;
  readonly table: WarehouseTableName;
  /** Where the level's items sit in a response, arrays as `[]`: `Classes[].Races[].Results[]`. */
  readonly path: string;
  /** Key columns of `table` read from the item, as the path that holds each: `{ class_id: ['ClassId'] }`. */
  readonly key: Readonly<Record<string, readonly PathSegment[]>>;
  /** Key columns of `table` the caller knows from the parent levels or the item's position. */
  readonly context: readonly string[];
  readonly nested: readonly NestedPart[];
}

const DRIVER: NestedPart = { field: 'Driver', table: 'drivers', key: { driver_id: 'DriverId' } };
const DRIVER_ID: readonly PathSegment[] = ['Driver', 0, 'DriverId'];

/**
 * Declares a level. Every column it names must be a key column of its table (as the table's
 * Drizzle definition declares it), so a key that changes in the schema cannot silently leave a
 * stale wire field here: the mismatch throws when this module loads, in every test.
 */
function level<S extends z.ZodObject>(
  schema: S,
  table: WarehouseTableName,
  path: string,
  key: Record<string, readonly PathSegment[]>,
  context: readonly string[] = [],
  nested: readonly NestedPart[] = [],
): Level<S> {
  const keyColumns = new Set(tableMeta(warehouseTables[table]).keyColumns);
  for (const column of [...Object.keys(key), ...context]) {
    if (!keyColumns.has(column)) throw new Error(`level ${path}: ${column} is not a key column of ${table}`);
  }
  for (const part of nested) {
    const partKeys = new Set(tableMeta(warehouseTables[part.table]).keyColumns);
    for (const column of Object.keys(part.key)) {
      if (!partKeys.has(column)) throw new Error(`level ${path}: ${column} is not a key column of ${part.table}`);
    }
  }
  return { schema, table, path, key, context, nested };
}

/** Classes are a dimension keyed by ClassId wherever they appear. */
const classesAt = <S extends z.ZodObject>(schema: S, path: string) => level(schema, 'classes', path, { class_id: ['ClassId'] });

export const LEVELS = {
  scheduleYears: level(yearItem, 'schedule_years', 'Years[]', { year: ['ScheduleYear'] }),
  pointYears: level(yearItem, 'point_years', 'Years[]', { year: ['ScheduleYear'] }),
  schedule: level(schedule, 'schedules', 'Schedules[]', { schedule_id: ['ScheduleId'] }),
  event: level(scheduleEvent, 'events', 'ScheduleEvents[]', { event_id: ['EventId'] }),
  eventClass: level(eventClass, 'event_classes', 'ScheduleEvents[].Classes[]', { class_id: ['ClassId'] }, ['event_id']),

  resultClass: classesAt(resultClass, 'Classes[]'),
  resultRace: level(resultRace, 'races', 'Classes[].Races[]', {}, ['event_id', 'class_id', 'race_number']),
  resultRow: level(resultRow, 'results', 'Classes[].Races[].Results[]', {}, ['event_id', 'class_id', 'race_number', 'row_index'], [DRIVER]),

  lineupClass: classesAt(lineupClass, 'Classes[]'),
  lineupRace: level(lineupRace, 'lineups', 'Classes[].Races[]', {}, ['event_id', 'class_id', 'race_number']),
  lineupEntry: level(
    lineupEntry,
    'lineups',
    'Classes[].Races[].Lineup[]',
    { start_position: ['StartPosition'] },
    ['event_id', 'class_id', 'race_number'],
    [DRIVER],
  ),

  entryClass: classesAt(entryClass, 'Classes[]'),
  entry: level(entry, 'entry_list', 'Classes[].Entries[]', { driver_id: DRIVER_ID }, ['event_id', 'class_id'], [DRIVER]),

  driverPass: level(
    driverPass,
    'driver_passes',
    'DriverPasses[]',
    { event_id: ['EventId'], class_id: ['ClassId'], driver_id: DRIVER_ID },
    [],
    [DRIVER],
  ),

  feedEvent: level(feedEvent, 'results_feed', 'Events[]', { event_id: ['EventId'] }),
  feedClass: level(feedClass, 'results_feed', 'Events[].Classes[]', { class_id: ['ClassId'] }, ['event_id']),
  feedResult: level(feedResult, 'results_feed', 'Events[].Classes[].Results[]', { finish: ['ResultPlace'] }, ['event_id', 'class_id'], [DRIVER]),

  driverStat: level(
    driverStat,
    'driver_stats',
    'DriverStats[]',
    { year: ['ScheduleYear'], class_id: ['ClassId'], driver_id: DRIVER_ID },
    [],
    [DRIVER],
  ),

  pointSchedule: level(pointSchedule, 'point_schedules', 'Schedules[]', { schedule_id: ['ScheduleId'] }),
  pointClass: level(pointClass, 'point_classes', 'Classes[]', { class_id: ['ClassId'] }, ['schedule_id']),
  // The envelope beside Points[]: its fields (PointsAsOf) go into every standings row; the keys come from the request.
  pointsHeader: level(pointsHeader.partial(), 'point_standings', '', {}, ['schedule_id', 'class_id']),
  pointsRow: level(pointsRow, 'point_standings', 'Points[]', { driver_id: DRIVER_ID }, ['schedule_id', 'class_id'], [DRIVER]),
} as const;
