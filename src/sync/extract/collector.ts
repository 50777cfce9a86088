import { ZodArray, ZodOptional, ZodUnknown, type z } from 'zod';

import type { WarehouseTableName } from '../../db/schema/mrp.js';
import type { Level } from '../../endpoints/declare.js';
import { driverIdOf, driverRow, type Driver } from '../../endpoints/driver.js';
import { FALLBACK, fastParse } from '../../endpoints/fast-parse.js';
import { driverLevelPath, prepareItem, type EndpointOverrides } from '../../shapes/overrides.js';

import { degrade, fieldReason } from './degrade.js';
import { unstorableTextAt } from './storable.js';
import type { Duplicate, Extracted, FieldError, Row, Scope, Seed } from './types.js';

const MAX_REASON_ISSUES = 5;

function describeIssues(level: Level, value: unknown, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, MAX_REASON_ISSUES)
    .map((i) => `${i.path.length ? i.path.join('.') : '(item)'}: ${fieldReason(level, i, value)}`)
    .join('; ');
}

const said = (where: string | (() => string)): string => (typeof where === 'string' ? where : where());

const nestedLists = new WeakMap<z.ZodObject, string[]>();

/**
 * The fields of a level that hold the next level down, declared `z.array(z.unknown())`: their
 * items are parsed (and checked) on their own, so a bad grandchild rejects itself, not its parent.
 */
function nestedListsOf(schema: z.ZodObject): string[] {
  let keys = nestedLists.get(schema);
  if (!keys) {
    keys = Object.entries(schema.shape as Record<string, z.ZodType>)
      .filter(([, field]) => {
        const inner = field instanceof ZodOptional ? field.unwrap() : field;
        return inner instanceof ZodArray && inner.element instanceof ZodUnknown;
      })
      .map(([k]) => k);
    nestedLists.set(schema, keys);
  }
  return keys;
}

/** `obj` without the nested list that becomes rows of its own (so `raw` does not hold it twice). */
export function without(obj: unknown, key: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj;
  const { [key]: _omitted, ...rest } = obj as Record<string, unknown>;
  return rest;
}

/** An array field of a parsed level; anything that is not an array reads as empty. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Gathers the rows, scopes, rejects and seeds of one response. Each nested level is parsed on
 * its own, so an item that fails (say, a class without ClassId) is rejected alone, with its
 * reason, while its siblings load.
 */
export class Collector {
  private readonly out: Extracted = { rows: {}, scopes: [], rejects: [], duplicates: [], fieldErrors: [], seeds: [], itemCount: 0 };
  private readonly seen = new Set<string>();

  /**
   * `overrides`: the endpoint's part of a `PITWALL_SHAPES` file, applied to each item before it
   * is parsed. `storable`: the whole body is known to hold no text PostgreSQL cannot store, so
   * no item is checked for it.
   */
  constructor(
    private readonly overrides?: EndpointOverrides,
    private readonly storable = false,
  ) {}

  /**
   * Parses one item of `level`. A field that fails its type is left out (NULL in its column) and
   * recorded as a field error, unless it is one of the level's key fields; returns null (and
   * records a reject) when a key is missing or unusable, or when the item holds text PostgreSQL
   * cannot store (see storable.ts), which would otherwise fail the whole response's transaction.
   * `context` holds the row's key columns known from the parent levels and the item's position,
   * for the field errors' row key (those of `level.table` are taken). `where` names the item in a
   * reject's reason; a function is called only for a reject. `checkStorable: false` is for values that are not kept in
   * `raw` (the points header), whose typed fields the schema has checked already.
   */
  parse(
    level: Level,
    value: unknown,
    where: string | (() => string),
    options: { context?: Readonly<Record<string, unknown>>; checkStorable?: boolean } = {},
  ): Record<string, unknown> | null {
    const schema = level.schema as z.ZodObject;
    const input = this.overrides ? prepareItem(value, this.overrides.levels.get(level.path), this.overrides.levels.get(driverLevelPath(level.path))) : value;
    // The usual item takes the fast path; anything else is zod's to judge (fast-parse.ts).
    const fast = fastParse(level, input);
    let data: Record<string, unknown>;
    let fieldErrors: FieldError[] | null = null;
    if (fast !== FALLBACK) {
      data = fast;
    } else {
      const result = schema.safeParse(input);
      if (result.success) {
        data = result.data;
      } else {
        const degraded = degrade(level, input, result.error, options.context ?? {});
        if (!degraded.ok) {
          this.reject(`${said(where)}: ${describeIssues(level, input, degraded.issues)}`, value);
          return null;
        }
        data = degraded.data;
        fieldErrors = degraded.fieldErrors;
      }
    }
    if (!this.storable && options.checkStorable !== false) {
      const at = unstorableTextAt(value, nestedListsOf(schema));
      if (at !== null) {
        this.reject(`${said(where)}: ${at}: holds U+0000 or an unpaired surrogate, which PostgreSQL cannot store`, value);
        return null;
      }
    }
    if (fieldErrors) this.out.fieldErrors.push(...fieldErrors);
    return data;
  }

  reject(reason: string, payload: unknown): void {
    this.out.rejects.push({ reason, payload: payload ?? null });
  }

  /** Where the record of the next item begins: what `duplicate` takes back should it be a copy. */
  mark(): number {
    return this.out.fieldErrors.length;
  }

  /**
   * The item parsed since `mark` is a copy of one already taken: it is kept as a duplicate, and
   * the field errors its parse recorded are taken back, as no row of it loads.
   */
  duplicate(duplicate: Duplicate, mark: number): void {
    this.out.fieldErrors.length = mark;
    this.out.duplicates.push(duplicate);
  }

  row(table: WarehouseTableName, row: Row): void {
    (this.out.rows[table] ??= []).push(row);
  }

  /** Dimension rows (drivers, classes) recur across a response; keep the first of each key. */
  dimension(table: 'drivers' | 'classes', key: number, row: Row): void {
    const k = `${table}:${key}`;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.row(table, row);
  }

  /** The first Driver of a `Driver: [...]` list, recorded in `drivers` when it has an id. */
  driver(drivers: Driver[] | undefined, rawList: unknown): Driver | null {
    const d = drivers?.[0];
    if (!d) return null;
    const id = driverIdOf(d);
    if (id !== undefined) this.dimension('drivers', id, driverRow(d, list(rawList)[0] ?? null));
    return d;
  }

  /**
   * A class seen anywhere, from a level naming it; raw holds just the identifying fields, under
   * their wire names, so every endpoint that shows the class agrees on its row.
   */
  klass(level: Level, classId: number, className: string | null, raw: unknown): void {
    const r = raw as Record<string, unknown> | null;
    const idWire = level.keyColumns.find(([c]) => c === 'class_id')?.[1] ?? 'ClassId';
    const nameWire = level.spec.className?.wire ?? 'ClassName';
    this.dimension('classes', classId, {
      class_id: classId,
      class_name: className,
      raw: { [idWire]: r?.[idWire] ?? classId, [nameWire]: r?.[nameWire] ?? className },
    });
  }

  /** A link row (an event's place in a schedule), once per key in a response. */
  link(table: WarehouseTableName, key: Record<string, unknown>, raw: unknown): void {
    const k = `${table}:${JSON.stringify(key)}`;
    if (this.seen.has(k)) return;
    this.seen.add(k);
    this.row(table, { ...key, raw });
  }

  scope(scope: Scope): void {
    this.out.scopes.push(scope);
  }

  seed(seed: Seed): void {
    this.out.seeds.push(seed);
  }

  items(n: number): void {
    this.out.itemCount += n;
  }

  result(): Extracted {
    return this.out;
  }
}

