import { tableMeta } from '../../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';
import type { Level } from '../../endpoints/declare.js';
import { driverIdOf, DRIVER_LIST } from '../../endpoints/driver.js';
import { DIMENSION_TABLES, type Endpoint, type Params } from '../../endpoints/endpoint.js';
import type { EndpointOverrides } from '../../shapes/overrides.js';

import { Collector, list, without, type Parsed } from './collector.js';
import type { Extracted, Scope } from './types.js';

type Keys = Record<string, unknown>;

const keyColumnsCache = new Map<WarehouseTableName, readonly string[]>();
const keyColumnsOf = (table: WarehouseTableName): readonly string[] => {
  let cols = keyColumnsCache.get(table);
  if (!cols) keyColumnsCache.set(table, (cols = tableMeta(warehouseTables[table]).keyColumns));
  return cols;
};

/** The key columns of `table` among `keys`: a row's key, or a field error's. */
function pick(keys: Keys, table: WarehouseTableName): Keys {
  const out: Keys = {};
  for (const column of keyColumnsOf(table)) if (column in keys) out[column] = keys[column];
  return out;
}

const describe = (ep: Omit<Endpoint, 'extract'>, keys: Keys, path: string): string =>
  [ep.name, ...Object.entries(keys).map(([k, v]) => `${k} ${String(v)}`), path || '(envelope)'].join(', ');

/**
 * The extractor every endpoint's declaration gets: walks the response's levels item by item,
 * and for each item that parses writes its row (key columns from the request, the parent levels,
 * its position and its own key fields; its declared columns; `raw` without the child list),
 * its driver and class dimension rows, its link row and its seed. A level whose child writes
 * the same table hands its columns down to each child row instead.
 */
export function extractDeclared(ep: Omit<Endpoint, 'extract'>): Endpoint['extract'] {
  const request = Object.entries(ep.request ?? {}).filter(([, r]) => r.column !== undefined);
  return (items: unknown[], params: Params, body: Record<string, unknown>, overrides?: EndpointOverrides): Extracted => {
    const c = new Collector(overrides);
    c.items(items.length);
    const keys: Keys = {};
    for (const [param, r] of request) keys[r.column!] = Number(params[param]);
    let inherited: Keys = {};
    if (ep.envelope) {
      // The envelope's own fields beside the list; a bad one is rejected without the rows it sits beside.
      const header = c.parse(ep.envelope, without(body, ep.arrayKey), describe(ep, keys, ''), {
        context: pick(keys, ep.envelope.table),
        checkStorable: false,
      });
      if (header) inherited = header.columns;
    }
    const seen: Keys[] = [];
    walk(c, ep, ep.list.level, items, keys, inherited, seen);
    for (const spec of ep.scopes) {
      const scope: Scope = { table: spec.table, where: {} };
      for (const [column, param] of Object.entries(spec.where ?? {})) scope.where[column] = [Number(params[param])];
      if (spec.seen !== undefined) {
        if (seen.length === 0) continue;
        scope.where[spec.seen] = seen.map((k) => k[spec.seen!] as number);
      }
      c.scope(scope);
    }
    return c.result();
  };
}

function walk(c: Collector, ep: Omit<Endpoint, 'extract'>, l: Level, items: readonly unknown[], keys: Keys, inherited: Keys, seen: Keys[] | null): void {
  const { spec } = l;
  const child = spec.child;
  const handsDown = child !== undefined && child.level.table === l.table;
  const ownRow = !handsDown && !DIMENSION_TABLES.has(l.table);
  items.forEach((item, index) => {
    const here: Keys = spec.position ? { ...keys, [spec.position]: index + 1 } : keys;
    const where = describe(ep, here, l.path);
    const p = c.parse(l, item, where, { context: pick(here, l.table) });
    if (!p) return;
    const rowKeys: Keys = { ...here, ...p.keys };
    const driverId = spec.driver ? driverIdOf(c.driver(p.driver, (item as Record<string, unknown>)[DRIVER_LIST])) : undefined;
    if (spec.driver === 'required') {
      if (driverId === undefined) {
        c.reject(`${where}: ${DRIVER_LIST}.0.DriverId: required for a ${l.table} row`, item);
        return;
      }
      rowKeys.driver_id = driverId;
    }
    if (spec.className || l.table === 'classes') c.klass(l, rowKeys.class_id as number, p.className, item);
    seen?.push(rowKeys);
    if (spec.seed) c.seed(spec.seed(rowKeys));
    if (ownRow) {
      c.row(l.table, {
        ...pick(rowKeys, l.table),
        ...inherited,
        ...p.columns,
        ...(spec.driver === 'optional' ? { driver_id: driverId ?? null } : {}),
        raw: child ? without(item, child.list) : item,
      });
    }
    if (spec.link) c.link(spec.link, pick(rowKeys, spec.link), linkRaw(ep, l, rowKeys, spec.link));
    if (child) walk(c, ep, child.level, list(p.list), rowKeys, handsDown ? { ...inherited, ...p.columns } : inherited, null);
  });
}

/** A link row's raw: its key under the wire names it came from (the request's parameter, the item's field). */
function linkRaw(ep: Omit<Endpoint, 'extract'>, l: Level, keys: Keys, table: WarehouseTableName): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const fromRequest = Object.entries(ep.request ?? {});
  for (const column of keyColumnsOf(table)) {
    const wire = fromRequest.find(([, r]) => r.column === column)?.[0] ?? l.keyColumns.find(([c]) => c === column)?.[1] ?? column;
    raw[wire] = keys[column];
  }
  return raw;
}

export type { Parsed };
