import { z } from 'zod';

import { tableMeta } from '../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';

import { DRIVER_ID, driverList, DRIVER_PART, type NestedPart, type PathSegment } from './driver.js';
import type { Seed } from './types.js';

/**
 * The vocabulary an endpoint module declares itself in. A wire name is written once, in a
 * `field(...)` beside the column it fills; the level's zod schema, the extraction into rows, the
 * shape report's modelled set and the docs' column list are all derived from these declarations.
 */

/** A column's source: the wire field that fills it and the type that parses it. */
export interface Field<W extends string = string, T extends z.ZodType = z.ZodType> {
  readonly wire: W;
  readonly type: T;
}

export const field = <const W extends string, T extends z.ZodType>(wire: W, type: T): Field<W, T> => ({ wire, type });

/** Columns (or, for `known`, names of no column) → the field each comes from. */
export type Fields = Readonly<Record<string, Field>>;

export interface LevelSpec {
  /** Where the level's items sit in a response, arrays as `[]`: `Classes[].Races[].Results[]`; `''` is the envelope. */
  readonly path: string;
  /**
   * The table the level's own fields feed. A level whose child writes the same table adds its
   * columns to every child row (a lineup race's name to each lineup row) instead of a row of its
   * own; a level of `classes` feeds that dimension only.
   */
  readonly table: WarehouseTableName;
  /** Key columns of `table` read from the item. Only a missing or unusable key rejects an item. */
  readonly keys?: Fields;
  /** Content columns of `table`. A value that fails its type is NULL in its column and recorded. */
  readonly columns?: Fields;
  /** Fields modelled without a column of their own (the points envelope's class fields). */
  readonly known?: Fields;
  /** Key columns known from the request, the parent levels or the item's position. */
  readonly context?: readonly string[];
  /** The key column holding the item's 1-based position in its list (`race_number`). */
  readonly position?: string;
  /**
   * For a positional level: the columns (of `columns`, or `driver_id` with a driver) whose
   * values tell one item from its siblings, so an item the upstream lists twice under one parent
   * loads once. When one of them is missing, only the whole item identifies it. A positional
   * level without it (a race) is never judged a duplicate: its position is all it has.
   */
  readonly identity?: readonly string[];
  /**
   * `Driver: [{...}]` feeds `drivers`; its DriverId fills `driver_id`, which is part of the key
   * (`required`: an item without it is rejected) or a plain column (`optional`).
   */
  readonly driver?: 'required' | 'optional';
  /**
   * The field naming the level's class: with its `class_id` key it feeds the `classes` dimension,
   * and the table's own `class_name` where it has one.
   */
  readonly className?: Field;
  /** The list holding the next level down, parsed item by item on its own. */
  readonly child?: { readonly list: string; readonly level: Level };
  /** What the children of the endpoint fan out from, for each item of this level. */
  readonly seed?: (keys: Readonly<Record<string, unknown>>) => Seed;
  /** A link row written beside each item's row: `schedule_events` for each event of a schedule. */
  readonly link?: WarehouseTableName;
}

type None = Record<never, never>;
type ShapeOf<F> = F extends Fields ? { -readonly [K in keyof F as F[K]['wire']]: F[K]['type'] } : None;
type DriverShape<S extends LevelSpec> = S['driver'] extends string ? { Driver: typeof driverList } : None;
type ListShape<S extends LevelSpec> = S['child'] extends { list: infer L extends string } ? { [X in L]: z.ZodOptional<z.ZodArray<z.ZodUnknown>> } : None;
type ClassShape<S extends LevelSpec> = ShapeOf<S['className'] extends Field ? { c: S['className'] } : undefined>;

/** The zod shape of a level: every declared field under its wire name, child lists as unknown items. */
export type LevelShape<S extends LevelSpec> = ShapeOf<S['keys']> & ShapeOf<S['columns']> & ShapeOf<S['known']> & ClassShape<S> & DriverShape<S> & ListShape<S>;

/** The zod shape of a level with its child levels nested in it: what a whole item looks like on the wire. */
export type FullShape<S extends LevelSpec> = ShapeOf<S['keys']> &
  ShapeOf<S['columns']> &
  ShapeOf<S['known']> &
  ClassShape<S> &
  DriverShape<S> &
  (S['child'] extends { list: infer L extends string; level: Level<infer C> } ? { [X in L]: z.ZodOptional<z.ZodArray<Obj<FullShape<C>>>> } : None);

/** A zod object of a derived shape (the conditional lets the compiler accept it as one). */
export type Obj<T> = z.ZodObject<T extends z.core.$ZodLooseShape ? T : never, z.core.$loose>;

/** What a level's item looks like on the wire, children included: the simulator renders these. */
export type WireOf<L> = L extends Level<infer S> ? z.input<Obj<FullShape<S>>> : never;

/** A declared level, with what the collector and the shape report read off it. */
export interface Level<S extends LevelSpec = LevelSpec> {
  readonly spec: S;
  readonly schema: Obj<LevelShape<S>>;
  readonly table: WarehouseTableName;
  readonly path: string;
  /** Key columns of `table` read from the item, as the path that holds each: `{ class_id: ['ClassId'] }`. */
  readonly key: Readonly<Record<string, readonly PathSegment[]>>;
  /** Key columns of `table` known from the request, the parent levels or the item's position. */
  readonly context: readonly string[];
  readonly nested: readonly NestedPart[];
  /** Content columns → wire field, in declaration order. */
  readonly columns: ReadonlyArray<readonly [column: string, wire: string]>;
  /** Key columns read from the item's own fields → wire field. */
  readonly keyColumns: ReadonlyArray<readonly [column: string, wire: string]>;
  /** What tells an item from its siblings under one parent (see NaturalKey); null: nothing does. */
  readonly natural: NaturalKey | null;
}

/**
 * The natural key of a level's items among the items of one list (the parent's keys, the same
 * for all of them, complete it): `key`, the key columns read from the item (and `driver_id` for
 * a level whose driver is part of the key); `identity`, the declared identity of a positional
 * level, each column with the wire field it is read from (null: the driver's id).
 */
export type NaturalKey =
  | { readonly kind: 'key'; readonly columns: readonly string[] }
  | { readonly kind: 'identity'; readonly columns: ReadonlyArray<readonly [column: string, wire: string | null]> };

/**
 * Declares a level. Every column it names must be a column of its table (as the table's Drizzle
 * definition declares it), keys among its key columns, so a key or column that changes in the
 * schema cannot leave a stale wire field here: the mismatch throws when the module loads, in
 * every test.
 */
export function level<const S extends LevelSpec>(spec: S): Level<S> {
  const meta = tableMeta(warehouseTables[spec.table]);
  const keyColumns = new Set(meta.keyColumns);
  const allColumns = new Set([...meta.keyColumns, ...meta.contentColumns]);
  const where = `level ${spec.path || '(envelope)'} of ${spec.table}`;
  const keys = Object.entries(spec.keys ?? {});
  const columns = Object.entries(spec.columns ?? {});
  for (const [column] of keys) if (!keyColumns.has(column)) throw new Error(`${where}: ${column} is not a key column`);
  for (const column of [...(spec.context ?? []), ...(spec.position ? [spec.position] : [])]) {
    if (!keyColumns.has(column)) throw new Error(`${where}: ${column} is not a key column`);
  }
  for (const [column] of columns) if (!allColumns.has(column)) throw new Error(`${where}: ${column} is not a column`);
  if (spec.driver === 'required' && !keyColumns.has('driver_id')) throw new Error(`${where}: driver_id is not a key column`);
  if (spec.identity && !spec.position) throw new Error(`${where}: identity is for a positional level`);
  for (const column of spec.identity ?? []) {
    if (!(column in (spec.columns ?? {})) && !(column === 'driver_id' && spec.driver)) throw new Error(`${where}: identity ${column} is not a column of the level`);
  }

  const shape: Record<string, z.ZodType> = {};
  const declare = (wire: string, type: z.ZodType) => {
    if (wire in shape) throw new Error(`${where}: ${wire} is declared twice`);
    shape[wire] = type;
  };
  for (const f of [...Object.values(spec.keys ?? {}), ...Object.values(spec.columns ?? {}), ...Object.values(spec.known ?? {})]) declare(f.wire, f.type);
  if (spec.className) declare(spec.className.wire, spec.className.type);
  if (spec.driver) declare('Driver', driverList);
  if (spec.child) declare(spec.child.list, z.array(z.unknown()).optional());

  const key: Record<string, readonly PathSegment[]> = Object.fromEntries(keys.map(([column, f]) => [column, [f.wire]]));
  if (spec.driver === 'required') key.driver_id = DRIVER_ID;
  return {
    spec,
    schema: z.looseObject(shape) as unknown as Obj<LevelShape<S>>,
    table: spec.table,
    path: spec.path,
    key,
    context: [...(spec.context ?? []), ...(spec.position ? [spec.position] : [])],
    nested: spec.driver ? [DRIVER_PART] : [],
    // A class name also fills the level's own table where it has such a column (event_classes).
    columns: [...columns, ...(spec.className && allColumns.has('class_name') ? [['class_name', spec.className] as const] : [])].map(
      ([column, f]) => [column, f.wire] as const,
    ),
    keyColumns: keys.map(([column, f]) => [column, f.wire] as const),
    natural: naturalKeyOf(spec, keys.map(([column]) => column)),
  };
}

function naturalKeyOf(spec: LevelSpec, keys: readonly string[]): NaturalKey | null {
  if (spec.identity) return { kind: 'identity', columns: spec.identity.map((c) => [c, spec.columns?.[c]?.wire ?? null] as const) };
  // A positional level's key is its position, which no two siblings share.
  if (spec.position) return null;
  const columns = spec.driver === 'required' ? [...keys, 'driver_id'] : keys;
  return columns.length > 0 ? { kind: 'key', columns } : null;
}

/** A level's schema with its child levels' schemas nested in place of their unknown lists. */
export function fullSchema<S extends LevelSpec>(l: Level<S>): Obj<FullShape<S>> {
  const child = l.spec.child;
  const schema = l.schema as unknown as z.ZodObject;
  if (!child) return schema as unknown as Obj<FullShape<S>>;
  return schema.extend({ [child.list]: z.array(fullSchema(child.level)).optional() }) as unknown as Obj<FullShape<S>>;
}

/** The levels of a tree, top first. */
export function levelsOf(top: Level): Level[] {
  const out: Level[] = [];
  for (let l: Level | undefined = top; l; l = l.spec.child?.level) out.push(l);
  return out;
}
