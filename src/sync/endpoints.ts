import { DRIVER_PASSES_KEY, DRIVER_STATS_KEY, ENTRY_LIST_KEY, FEED_KEY, LINEUPS_KEY, POINT_CLASSES_KEY, POINT_SCHEDULES_KEY, YEARS_KEY } from '../api/schemas/assumed.js';
import type { WarehouseTableName } from '../db/schema/mrp.js';

import { extractDriverPasses, extractEntryList, extractLineups, extractResults } from './extract/event-detail.js';
import { extractDriverStats, extractFeed } from './extract/feeds.js';
import { LEVELS, type Level } from './extract/levels.js';
import { extractPointClasses, extractPointSchedules, extractStandings } from './extract/points.js';
import { extractEvents, extractSchedules, extractYears } from './extract/schedules.js';
import type { Extracted, Seed } from './extract/types.js';

export type EndpointName =
  | 'schedule_years'
  | 'schedules'
  | 'events'
  | 'results'
  | 'lineups'
  | 'entry_list'
  | 'driver_passes'
  | 'results_feed'
  | 'driver_stats'
  | 'point_years'
  | 'point_schedules'
  | 'point_classes'
  | 'point_standings';

export type Params = Record<string, string>;

/**
 * One upstream endpoint: where it lives, what it fans out from, and how its response becomes
 * rows. The walk reads nothing else; adding an endpoint means adding one entry here.
 */
export interface Endpoint {
  name: EndpointName;
  path: string;
  /** The envelope key holding the response's list. */
  arrayKey: string;
  /** The endpoint whose seeds this one fans out from; null for a root. */
  parent: EndpointName | null;
  /** The query (without the key) for one seed of the parent; roots get `{}`. */
  params: (seed: Seed) => Params;
  /** Warehouse tables the response writes. */
  tables: readonly WarehouseTableName[];
  extract: (items: unknown[], params: Params, body: Record<string, unknown>) => Extracted;
  /**
   * The levels of the body its extractor parses (see extract/levels.ts): their schemas are what
   * the shape report (`pitwall drift`) counts as modelled, with the envelope added to every one.
   */
  levels: readonly Level[];
}

const byEvent = (seed: Seed): Params => ({ EventId: String(seed.eventId) });
const none = (): Params => ({});

export const ENDPOINTS: readonly Endpoint[] = [
  // Schedules side: years → schedules of each year → events of each schedule → per-event detail.
  {
    name: 'schedule_years',
    path: '/v2/schedules/years/',
    arrayKey: YEARS_KEY,
    parent: null,
    params: none,
    tables: ['schedule_years'],
    extract: extractYears('schedule_years'),
    levels: [LEVELS.scheduleYears],
  },
  {
    name: 'schedules',
    path: '/v2/schedules/',
    arrayKey: 'Schedules',
    parent: 'schedule_years',
    params: (s) => ({ ScheduleYear: String(s.year) }),
    tables: ['schedules'],
    extract: extractSchedules,
    levels: [LEVELS.schedule],
  },
  {
    name: 'events',
    path: '/v2/schedules/events/',
    arrayKey: 'ScheduleEvents',
    parent: 'schedules',
    params: (s) => ({ ScheduleId: String(s.scheduleId) }),
    tables: ['events', 'schedule_events', 'event_classes', 'classes'],
    extract: extractEvents,
    levels: [LEVELS.event, LEVELS.eventClass],
  },
  {
    name: 'results',
    path: '/v2/schedules/results/',
    arrayKey: 'Classes',
    parent: 'events',
    params: byEvent,
    tables: ['races', 'results', 'drivers', 'classes'],
    extract: extractResults,
    levels: [LEVELS.resultClass, LEVELS.resultRace, LEVELS.resultRow],
  },
  {
    name: 'lineups',
    path: '/v2/schedules/lineups/',
    arrayKey: LINEUPS_KEY,
    parent: 'events',
    params: byEvent,
    tables: ['lineups', 'drivers', 'classes'],
    extract: extractLineups,
    levels: [LEVELS.lineupClass, LEVELS.lineupRace, LEVELS.lineupEntry],
  },
  {
    name: 'entry_list',
    path: '/v2/schedules/entryList/',
    arrayKey: ENTRY_LIST_KEY,
    parent: 'events',
    params: byEvent,
    tables: ['entry_list', 'drivers', 'classes'],
    extract: extractEntryList,
    levels: [LEVELS.entryClass, LEVELS.entry],
  },
  {
    name: 'driver_passes',
    path: '/v2/schedules/driverPasses/',
    arrayKey: DRIVER_PASSES_KEY,
    parent: 'events',
    params: byEvent,
    tables: ['driver_passes', 'drivers', 'classes'],
    extract: extractDriverPasses,
    levels: [LEVELS.driverPass],
  },
  {
    name: 'results_feed',
    path: '/v2/schedules/results/feed/',
    arrayKey: FEED_KEY,
    parent: null,
    params: none,
    tables: ['results_feed', 'drivers', 'classes'],
    extract: extractFeed,
    levels: [LEVELS.feedEvent, LEVELS.feedClass, LEVELS.feedResult],
  },
  {
    name: 'driver_stats',
    path: '/v2/schedules/driverStats/',
    arrayKey: DRIVER_STATS_KEY,
    parent: null,
    params: none,
    tables: ['driver_stats', 'drivers', 'classes'],
    extract: extractDriverStats,
    levels: [LEVELS.driverStat],
  },
  // Points side: years → points schedules of each year → classes of each → standings of each class.
  {
    name: 'point_years',
    path: '/v2/points/years/',
    arrayKey: YEARS_KEY,
    parent: null,
    params: none,
    tables: ['point_years'],
    extract: extractYears('point_years'),
    levels: [LEVELS.pointYears],
  },
  {
    name: 'point_schedules',
    path: '/v2/points/schedules/',
    arrayKey: POINT_SCHEDULES_KEY,
    parent: 'point_years',
    params: (s) => ({ ScheduleYear: String(s.year) }),
    tables: ['point_schedules'],
    extract: extractPointSchedules,
    levels: [LEVELS.pointSchedule],
  },
  {
    name: 'point_classes',
    path: '/v2/points/classes/',
    arrayKey: POINT_CLASSES_KEY,
    parent: 'point_schedules',
    params: (s) => ({ ScheduleId: String(s.scheduleId) }),
    tables: ['point_classes', 'classes'],
    extract: extractPointClasses,
    levels: [LEVELS.pointClass],
  },
  {
    name: 'point_standings',
    path: '/v2/points/',
    arrayKey: 'Points',
    parent: 'point_classes',
    params: (s) => ({ ScheduleId: String(s.scheduleId), ClassId: String(s.classId) }),
    tables: ['point_standings', 'drivers'],
    extract: extractStandings,
    levels: [LEVELS.pointsHeader, LEVELS.pointsRow],
  },
];

export function endpoint(name: EndpointName): Endpoint {
  const e = ENDPOINTS.find((x) => x.name === name);
  if (!e) throw new Error(`unknown endpoint ${name}`);
  return e;
}

export function childrenOf(name: EndpointName): Endpoint[] {
  return ENDPOINTS.filter((e) => e.parent === name);
}

export const ROOTS: readonly Endpoint[] = ENDPOINTS.filter((e) => e.parent === null);

/**
 * Tables fed by many endpoints at once. Their rows count as changed only when a typed column
 * changes, never for a difference in `raw` alone (see upsertRows' `compareRaw`).
 */
export const DIMENSION_TABLES: ReadonlySet<WarehouseTableName> = new Set(['drivers', 'classes']);

/**
 * The order tables are written in inside every transaction. Shared dimension rows (classes,
 * drivers) come first, so concurrent transactions take their row locks in the same order.
 */
export const LOAD_ORDER: readonly WarehouseTableName[] = [
  'classes',
  'drivers',
  'schedule_years',
  'schedules',
  'events',
  'schedule_events',
  'event_classes',
  'races',
  'results',
  'lineups',
  'entry_list',
  'driver_passes',
  'results_feed',
  'driver_stats',
  'point_years',
  'point_schedules',
  'point_classes',
  'point_standings',
];
