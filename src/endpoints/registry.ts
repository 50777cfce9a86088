import type { WarehouseTableName } from '../db/schema/mrp.js';

import { levelsOf } from './declare.js';
import { driverPasses } from './driver-passes.js';
import { driverStats } from './driver-stats.js';
import { DIMENSION_TABLES, type Endpoint } from './endpoint.js';
import { entryList } from './entry-list.js';
import { events } from './events.js';
import { lineups } from './lineups.js';
import { pointClasses } from './point-classes.js';
import { pointSchedules } from './point-schedules.js';
import { pointStandings } from './point-standings.js';
import { resultsFeed } from './results-feed.js';
import { results } from './results.js';
import { schedules } from './schedules.js';
import type { EndpointName } from './types.js';
import { pointYears, scheduleYears } from './years.js';

/**
 * Every endpoint, parents before their children. Adding one means its module and a line here;
 * the lists below are derived from the declarations, never kept beside them.
 */
export const ENDPOINTS: readonly Endpoint[] = [
  // Schedules side: years → schedules of each year → events of each schedule → per-event detail.
  scheduleYears,
  schedules,
  events,
  results,
  lineups,
  entryList,
  driverPasses,
  resultsFeed,
  driverStats,
  // Points side: years → points schedules of each year → classes of each → standings of each class.
  pointYears,
  pointSchedules,
  pointClasses,
  pointStandings,
];

/**
 * Look-ups over a list of endpoints in the registry's order: the declarations here, and the
 * engine's endpoints (src/sync/endpoints.ts), which are the same list with extractors attached.
 */
export function endpointTree<E extends Pick<Endpoint, 'name' | 'parent'>>(list: readonly E[]) {
  return {
    endpoint(name: EndpointName): E {
      const e = list.find((x) => x.name === name);
      if (!e) throw new Error(`unknown endpoint ${name}`);
      return e;
    },
    childrenOf: (name: EndpointName): E[] => list.filter((e) => e.parent === name),
    roots: list.filter((e) => e.parent === null) as readonly E[],
  };
}

const tree = endpointTree(ENDPOINTS);
export const { endpoint, childrenOf } = tree;
export const ROOTS: readonly Endpoint[] = tree.roots;

/**
 * The order tables are written in inside every transaction: the shared dimension rows (classes,
 * drivers) first, so concurrent transactions take their row locks in the same order, then each
 * endpoint's tables in declaration order.
 */
export const LOAD_ORDER: readonly WarehouseTableName[] = [...new Set([...DIMENSION_TABLES, ...ENDPOINTS.flatMap((e) => e.tables)])];

/** The endpoints fanning out from events: per-event detail, whose stored hashes go when an event goes. */
export const EVENT_DETAIL_ENDPOINTS: readonly Endpoint[] = ENDPOINTS.filter((e) => e.parent === 'events');

/**
 * Tables whose rows belong to one event and go when the event goes: those of the levels below
 * an event (its classes) and of the per-event detail endpoints, dimensions aside.
 */
export const EVENT_CHILD_TABLES: readonly WarehouseTableName[] = [
  ...new Set(
    [
      ...ENDPOINTS.filter((e) => e.cancelsEvents).flatMap((e) => levelsOf(e.list.level).slice(1).map((l) => l.table)),
      ...EVENT_DETAIL_ENDPOINTS.flatMap((e) => e.tables),
    ].filter((t) => !DIMENSION_TABLES.has(t)),
  ),
];

/** The per-event endpoints the live job refreshes. */
export const LIVE_EVENT_DETAIL: readonly Endpoint[] = ENDPOINTS.filter((e) => e.live);
