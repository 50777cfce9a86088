import type { WarehouseTableName } from '../db/schema/mrp.js';

import { levelsOf, type Level } from './declare.js';
import type { EndpointName, Seed } from './types.js';

export type Params = Record<string, string>;

/** The dimension tables: fed by many endpoints at once, written first in every transaction. */
export const DIMENSION_TABLES: ReadonlySet<WarehouseTableName> = new Set(['classes', 'drivers']);

/**
 * A set of rows one complete response covers (rows it no longer lists get `_deleted_at`):
 * `where` maps a key column to the request parameter holding its value, `seen` names a key
 * column whose values are those of the response's own items (and covers nothing when it has
 * none). Neither covers the whole table.
 */
export interface ScopeSpec {
  readonly table: WarehouseTableName;
  readonly where?: Readonly<Record<string, string>>;
  readonly seen?: string;
}

export interface EndpointSpec {
  readonly name: EndpointName;
  readonly path: string;
  /** The endpoint whose seeds this one fans out from; null for a root. */
  readonly parent: EndpointName | null;
  /**
   * The request's parameters, each filled from a field of the parent's seed, and the key column
   * of every row of the response it gives, if any: `{ EventId: { seed: 'eventId', column: 'event_id' } }`.
   */
  readonly request?: Readonly<Record<string, { readonly seed: string; readonly column?: string }>>;
  /** The envelope key holding the response's list, and the level of its items. */
  readonly list: { readonly key: string; readonly level: Level };
  /** The envelope's own fields, where they carry data for the rows (the standings' PointsAsOf). */
  readonly envelope?: Level;
  readonly scopes: readonly ScopeSpec[];
  /** Refreshed by the `live` job for the feed's events: what changes when results are posted. */
  readonly live?: boolean;
  /**
   * An event no schedule lists any more was cancelled upstream: after this endpoint loads, it
   * and every row of the endpoints fanning out from events are marked deleted (cascade.ts).
   */
  readonly cancelsEvents?: boolean;
}

/**
 * One upstream endpoint, as its module declares it, with what the walk, the loader and the
 * shape report read off the declaration. Data only: the sync attaches the extractor that runs
 * it (src/sync/endpoints.ts).
 */
export interface Endpoint extends EndpointSpec {
  /** The envelope key holding the response's list. */
  readonly arrayKey: string;
  /** The query (without the key) for one seed of the parent; roots get `{}`. */
  readonly params: (seed: Seed) => Params;
  /** Warehouse tables the response writes, in the order its levels declare them. */
  readonly tables: readonly WarehouseTableName[];
  /** The table its rejected items are counted against: its first that is not a dimension. */
  readonly rejectTable: WarehouseTableName;
  /** Its levels, the envelope's first: their schemas are what `pitwall drift` counts as modelled. */
  readonly levels: readonly Level[];
}

/**
 * Whether a level's items are rows of its table: not a dimension level (a results class feeds
 * `classes` only), and not a level that hands its columns down to its child's rows of the same
 * table (a lineup race). Rows below a level without a row of its own keep its new fields in `outer_raw`.
 */
export function hasOwnRow(l: Level): boolean {
  const child = l.spec.child;
  return !DIMENSION_TABLES.has(l.table) && !(child !== undefined && child.level.table === l.table);
}

/** The value of a request's parameter that fills key `column` of its rows (the events' `schedule_id`). */
export function requestKey(ep: EndpointSpec, params: Params, column: string): number {
  const param = Object.entries(ep.request ?? {}).find(([, r]) => r.column === column)?.[0];
  if (param === undefined) throw new Error(`endpoint ${ep.name}: no request parameter fills ${column}`);
  return Number(params[param]);
}

/** The tables a level tree writes: each level's own, the dimensions it feeds, its link rows. */
function tablesOf(levels: readonly Level[]): WarehouseTableName[] {
  const out = new Set<WarehouseTableName>();
  for (const l of levels) {
    out.add(l.table);
    if (l.spec.link) out.add(l.spec.link);
    if (l.spec.driver) out.add('drivers');
    if (l.spec.className) out.add('classes');
  }
  return [...out];
}

export function declareEndpoint(spec: EndpointSpec): Endpoint {
  const levels = [...(spec.envelope ? [spec.envelope] : []), ...levelsOf(spec.list.level)];
  const tables = tablesOf(levels);
  const rejectTable = tables.find((t) => !DIMENSION_TABLES.has(t));
  if (!rejectTable) throw new Error(`endpoint ${spec.name} writes no table of its own`);
  const request = Object.entries(spec.request ?? {});
  const params = (seed: Seed): Params => Object.fromEntries(request.map(([param, r]) => [param, String(seed[r.seed])]));
  for (const scope of spec.scopes) {
    if (!tables.includes(scope.table)) throw new Error(`endpoint ${spec.name}: scope of ${scope.table}, which it does not write`);
  }
  return { ...spec, arrayKey: spec.list.key, params, tables, rejectTable, levels };
}
