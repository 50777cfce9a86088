import type { z } from 'zod';

import { envelope } from '../../api/schemas/envelope.js';
import { tableMeta } from '../../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';
import type { Level } from '../../endpoints/declare.js';
import { driverIdOf, DRIVER_LIST, type Driver } from '../../endpoints/driver.js';
import { hasOwnRow, type Endpoint } from '../../endpoints/endpoint.js';
import { jsonText } from '../../exact-number.js';

import { Collector, list, without } from './collector.js';
import { naturalText, naturalValues, sameAs } from './natural-key.js';
import type { Extract, Row, Scope } from './types.js';

type Keys = Record<string, unknown>;

const keyColumnsCache = new Map<WarehouseTableName, readonly string[]>();
const keyColumnsOf = (table: WarehouseTableName): readonly string[] => {
  let cols = keyColumnsCache.get(table);
  if (!cols) keyColumnsCache.set(table, (cols = tableMeta(warehouseTables[table]).keyColumns));
  return cols;
};

const describe = (ep: Endpoint, keys: Keys, path: string): string =>
  [ep.name, ...Object.entries(keys).map(([k, v]) => `${k} ${String(v)}`), path || '(envelope)'].join(', ');

/**
 * The extractor the sync attaches to every endpoint's declaration (src/sync/endpoints.ts): walks the response's levels item by item,
 * and for each item that parses writes its row (key columns from the request, the parent levels,
 * its position and its own key fields; its declared columns; `raw` without the child list),
 * its driver and class dimension rows, its link row and its seed. A level whose child writes
 * the same table hands its columns down to each child row instead. An item whose natural key
 * (see NaturalKey in declare.ts) an earlier sibling has is a duplicate: the first copy loads,
 * later ones are kept aside with their children and take no position in the list.
 */
export function extractDeclared(ep: Endpoint): Extract {
  const request = Object.entries(ep.request ?? {}).filter(([, r]) => r.column !== undefined);
  return (items, params, body, overrides, known) => {
    const c = new Collector(overrides, known?.storable === true);
    c.items(items.length);
    const keys: Keys = {};
    for (const [param, r] of request) keys[r.column!] = Number(params[param]);
    let inherited: Keys | null = null;
    let outer: Outer = null;
    if (ep.envelope) {
      // The envelope's own fields beside the list; a bad one is rejected without the rows it sits beside.
      const beside = without(body, ep.arrayKey);
      const header = c.parse(ep.envelope, beside, () => describe(ep, keys, ''), { context: keys, checkStorable: false });
      if (header) inherited = columnsOf(ep.envelope, header, {});
      outer = withExtras(outer, ep.envelope, beside, ENVELOPE_FIELDS);
    }
    const seen: Keys[] = [];
    walk(c, ep, ep.list.level, items, keys, inherited, outer, seen);
    for (const spec of ep.scopes) {
      const scope: Scope = { table: spec.table, where: {}, byRequest: spec.seen === undefined };
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

/** The level's declared columns of a parsed item, added to `into`. */
function columnsOf(l: Level, data: Record<string, unknown>, into: Keys): Keys {
  for (const [column, wire] of l.columns) into[column] = data[wire];
  return into;
}

/** Fields of no-row levels that nothing models, by level path: what a row's `outer_raw` holds. */
type Outer = Record<string, Record<string, unknown>> | null;

/** The envelope fields every response has, modelled for all endpoints (envelope.ts). */
const ENVELOPE_FIELDS: ReadonlySet<string> = new Set(Object.keys(envelope.shape));

const modelledNames = new WeakMap<Level, ReadonlySet<string>>();
const namesOf = (l: Level): ReadonlySet<string> => {
  let names = modelledNames.get(l);
  if (!names) modelledNames.set(l, (names = new Set(Object.keys((l.schema as unknown as z.ZodObject).shape))));
  return names;
};

/** The JSON text of an `outer`, once per object: the rows below one class share it. */
const outerTexts = new WeakMap<object, string>();
function outerText(outer: NonNullable<Outer>): string {
  let text = outerTexts.get(outer);
  if (text === undefined) outerTexts.set(outer, (text = jsonText(outer)!));
  return text;
}

/**
 * `outer` with the fields of `item` (at level `l`, which has no row of its own) that nothing
 * models: usually none, and then `outer` itself, so rows share it and nothing is allocated.
 */
function withExtras(outer: Outer, l: Level, item: unknown, alsoModelled?: ReadonlySet<string>): Outer {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return outer;
  const names = namesOf(l);
  let extras: Record<string, unknown> | null = null;
  for (const key of Object.keys(item)) {
    if (names.has(key) || alsoModelled?.has(key)) continue;
    extras ??= {};
    extras[key] = (item as Record<string, unknown>)[key];
  }
  return extras ? { ...outer, [l.path || '$']: extras } : outer;
}

/**
 * Parses the items of level `l` and writes what each yields. Runs for every item of every
 * response, so it builds each row in place, once, and names an item only for a reject.
 */
function walk(
  c: Collector,
  ep: Endpoint,
  l: Level,
  items: readonly unknown[],
  keys: Keys,
  inherited: Keys | null,
  outer: Outer,
  seen: Keys[] | null,
): void {
  const { spec } = l;
  const child = spec.child;
  const handsDown = child !== undefined && child.level.table === l.table;
  const ownRow = hasOwnRow(l);
  const tableKeys = keyColumnsOf(l.table);
  const { natural } = l;
  // The first copy of each natural key, by its index in the list; later copies do not load.
  const firsts = natural ? new Map<string, number>() : null;
  // Copies dropped so far: they take no position, so the rows after one keep theirs (1..n).
  let dropped = 0;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index];
    const here: Keys = spec.position ? { ...keys, [spec.position]: index + 1 - dropped } : keys;
    const mark = c.mark();
    const data = c.parse(l, item, () => describe(ep, here, l.path), { context: here });
    if (!data) continue;
    let rowKeys = here;
    if (l.keyColumns.length > 0) {
      rowKeys = { ...here };
      for (const [column, wire] of l.keyColumns) rowKeys[column] = data[wire];
    }
    const driverId = spec.driver ? driverIdOf(c.driver(data[DRIVER_LIST] as Driver[] | undefined, (item as Record<string, unknown>)[DRIVER_LIST])) : undefined;
    if (spec.driver === 'required') {
      if (driverId === undefined) {
        c.reject(`${describe(ep, here, l.path)}: ${DRIVER_LIST}.0.DriverId: required for a ${l.table} row`, item);
        continue;
      }
      if (rowKeys === here) rowKeys = { ...here };
      rowKeys.driver_id = driverId;
    }
    if (natural && firsts) {
      const values = naturalValues(natural, rowKeys, data, driverId);
      const text = naturalText(values, item);
      const first = firsts.get(text);
      if (first !== undefined) {
        const reason = `duplicate of item ${first + 1} under ${describe(ep, keys, l.path)}: item ${index + 1} has the same ${sameAs(natural, values)}`;
        c.duplicate({ table: l.table, reason, payload: item }, mark);
        dropped += 1;
        continue;
      }
      firsts.set(text, index);
    }
    const className = spec.className ? ((data[spec.className.wire] as string | null | undefined) ?? null) : null;
    if (spec.className || l.table === 'classes') c.klass(l, rowKeys.class_id as number, className, item);
    seen?.push(rowKeys);
    if (spec.seed) c.seed(spec.seed(rowKeys));
    if (ownRow) {
      const row: Row = { raw: child ? without(item, child.list) : item };
      for (const column of tableKeys) if (column in rowKeys) row[column] = rowKeys[column];
      if (inherited) Object.assign(row, inherited);
      columnsOf(l, data, row);
      if (spec.driver === 'optional') row.driver_id = driverId ?? null;
      if (outer) row.outer_raw = outerText(outer);
      c.row(l.table, row);
    }
    if (spec.link) c.link(spec.link, linkKey(spec.link, rowKeys), linkRaw(ep, l, rowKeys, spec.link));
    if (child) {
      const below = ownRow ? outer : withExtras(outer, l, item);
      walk(c, ep, child.level, list(data[child.list]), rowKeys, handsDown ? columnsOf(l, data, { ...inherited }) : inherited, below, null);
    }
  }
}

function linkKey(table: WarehouseTableName, keys: Keys): Keys {
  const out: Keys = {};
  for (const column of keyColumnsOf(table)) out[column] = keys[column];
  return out;
}

/** A link row's raw: its key under the wire names it came from (the request's parameter, the item's field). */
function linkRaw(ep: Endpoint, l: Level, keys: Keys, table: WarehouseTableName): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const fromRequest = Object.entries(ep.request ?? {});
  for (const column of keyColumnsOf(table)) {
    const wire = fromRequest.find(([, r]) => r.column === column)?.[0] ?? l.keyColumns.find(([c]) => c === column)?.[1] ?? column;
    raw[wire] = keys[column];
  }
  return raw;
}
