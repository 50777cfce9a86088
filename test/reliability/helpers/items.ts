import fc from 'fast-check';
import { z } from 'zod';

import { carNumber, flag, id, optDecimal, optInt, optText, optUsDateTime } from '../../../src/api/schemas/primitives.js';
import type { WarehouseTableName } from '../../../src/db/schema/mrp.js';
import type { Level as DeclaredLevel } from '../../../src/endpoints/declare.js';
import { driverList } from '../../../src/endpoints/driver.js';
import { DIMENSION_TABLES } from '../../../src/endpoints/endpoint.js';
import { ENDPOINTS } from '../../../src/endpoints/registry.js';
import type { EndpointName } from '../../../src/endpoints/types.js';

/**
 * fast-check arbitraries for upstream items, built from the endpoint declarations themselves, so
 * a field added to a declaration is generated without touching this file. Each endpoint is a
 * tree of levels (a schedule event holds classes; a results class holds races, which hold rows);
 * a level with a table becomes one row there whose `raw` is the level without its nested list.
 */

export interface Level {
  schema: z.ZodObject;
  /** The table a valid object of this level becomes a row of (dimension tables aside). */
  table?: WarehouseTableName;
  /** The list inside this level whose items are a level of their own. */
  nested?: { key: string; level: Level };
  /** The extractor refuses a row of this level without Driver[0].DriverId. */
  needsDriverId?: boolean;
  /** The top-level fields holding a key of its table. */
  keyFields: ReadonlySet<string>;
}

function treeOf(l: DeclaredLevel): Level {
  const child = l.spec.child;
  const handsDown = child !== undefined && child.level.table === l.table;
  return {
    schema: l.schema as unknown as z.ZodObject,
    ...(handsDown || DIMENSION_TABLES.has(l.table) ? {} : { table: l.table }),
    ...(child ? { nested: { key: child.list, level: treeOf(child.level) } } : {}),
    needsDriverId: l.spec.driver === 'required',
    keyFields: new Set(Object.values(l.key).map((path) => String(path[0]))),
  };
}

/** Every endpoint's item tree. */
export const LEVELS = Object.fromEntries(ENDPOINTS.map((ep) => [ep.name, treeOf(ep.list.level)])) as Record<EndpointName, Level>;

const INT4_MAX = 2 ** 31 - 1;

/** Characters that trip up text handling but that PostgreSQL stores: RTL marks, BOMs, combining marks, astral planes, quotes. */
const ODD = ['\u202e', '\u200b', '\ufeff', 'e\u0301', '😀', '𝒳', '\u2028', '\u0085', "'", '"', '\\', ',', ';', '--', 'ß', '中', '\t', '\n'];
const oddUnit = fc.oneof(fc.constantFrom(...ODD), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
/** Well-formed text without U+0000: everything PostgreSQL can store, odd Unicode included. */
export const storableString = fc
  .oneof(
    { weight: 6, arbitrary: fc.string({ unit: oddUnit, maxLength: 24 }) },
    // A huge value now and then: a text column takes it whole.
    { weight: 1, arbitrary: fc.string({ unit: oddUnit, minLength: 1, maxLength: 4 }).map((s) => s.repeat(20_000)) },
  )
  .map((s) => s.replaceAll('\u0000', ' '));

/** Text PostgreSQL cannot store: U+0000, or half of a surrogate pair. */
export const unstorableString = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d'), fc.string({ maxLength: 8 }))
  .map(([a, bad, b]) => a + bad + b.replace(/^[\udc00-\udfff]/, 'x'));

const intText = (n: number) => fc.constantFrom(String(n), ` ${n} `);
const validId = fc.integer({ min: 0, max: INT4_MAX }).chain((n) => fc.oneof(fc.constant(n), intText(n)));
const validInt = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: INT4_MAX }).chain((n) => fc.oneof(fc.constant(n), intText(n))),
  fc.constantFrom('', null),
);
const validDecimal = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.option(fc.bigInt({ min: 0n, max: 10n ** 12n }))).map(
    ([neg, whole, frac]) => `${neg ? '-' : ''}${whole}${frac === null ? '' : `.${frac}`}`,
  ),
  fc.constantFrom('', null),
);
const validFlag = fc.constantFrom(true, false, 0, 1, 'true', 'False', ' YES ', 'n', '1', '', null);
const validText = fc.oneof(storableString, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null));
const validDate = fc
  .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1900, max: 2100 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 59 }), fc.boolean())
  .map(([m, d, y, h, mi, pm]) => `${m}/${d}/${y} ${h}:${String(mi).padStart(2, '0')}:00 ${pm ? 'PM' : 'AM'}`);
const validDateField = fc.oneof(validDate, fc.constantFrom('', null));

/** A valid value for one of the shared field parsers, by identity. */
const PRIMITIVES = new Map<z.ZodType, fc.Arbitrary<unknown>>([
  [id, validId],
  [optInt, validInt],
  [optDecimal, validDecimal],
  [flag, validFlag],
  [optText, validText],
  [carNumber, validText],
  [optUsDateTime, validDateField],
]);

/** Storable JSON for fields pitwall does not model: they must be kept in `raw`, never cause a reject. */
export const storableJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3, stringUnit: oddUnit }).map((v) =>
  JSON.parse(JSON.stringify(v).replaceAll('\\u0000', ' ')),
);
const extraName = fc.oneof(
  fc.string({ unit: oddUnit, minLength: 1, maxLength: 12 }).map((s) => s.replaceAll('\u0000', ' ')),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'RequestValid'),
);

const driverObject = (needsId: boolean) =>
  fc.record(
    {
      DriverId: validId,
      DriverFName: validText,
      // Bounded by its schema: drivers.last_name is indexed (see optIndexedText).
      DriverLName: fc.oneof(fc.string({ unit: oddUnit, maxLength: 24 }).map((s) => s.replaceAll('\u0000', ' ')), fc.integer(), fc.constant(null)),
      DriverSuffix: validText,
      DriverCity: validText,
      DriverState: validText,
      DriverCountry: validText,
    },
    { requiredKeys: needsId ? ['DriverId'] : [] },
  );

function fieldArbitrary(schema: z.ZodType, name: string, level: Level): fc.Arbitrary<unknown> | undefined {
  if (schema === driverList) return fc.array(driverObject(level.needsDriverId === true), { minLength: level.needsDriverId ? 1 : 0, maxLength: 2 });
  const direct = PRIMITIVES.get(schema);
  if (direct) return direct;
  if (schema instanceof z.ZodOptional) return fieldArbitrary(schema.unwrap() as z.ZodType, name, level);
  throw new Error(`no arbitrary for field ${name}`);
}

/** Whether the schema takes a missing field (then the generator sometimes leaves it out). */
const optional = (schema: z.ZodType) => schema.safeParse(undefined).success;

/** A valid object of `level`, its nested items included, with a few unmodelled fields. */
export function validObject(level: Level, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const shape = level.schema.shape as Record<string, z.ZodType>;
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    if (name === level.nested?.key) continue;
    const arb = fieldArbitrary(schema, name, level);
    if (!arb) continue;
    fields[name] = arb;
    if (!optional(schema) || (name === 'Driver' && level.needsDriverId)) required.push(name);
  }
  const own = fc.record(fields, { requiredKeys: required });
  const extra = fc.dictionary(extraName, storableJson, { maxKeys: 2 }).map((d) => {
    // Unmodelled fields must not shadow modelled ones.
    for (const k of Object.keys(d)) if (k in shape) delete d[k];
    return d;
  });
  const nested = level.nested;
  const children = nested ? fc.array(validObject(nested.level, depth + 1), { maxLength: depth === 0 ? 3 : 2 }) : fc.constant(undefined);
  return fc.tuple(own, extra, children).map(([o, x, kids]) => {
    // defineProperty, so an unmodelled "__proto__" is a field like any other, as JSON.parse makes it.
    const obj: Record<string, unknown> = {};
    for (const [k, v] of Object.entries({ ...o })) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(x)) Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (nested && kids !== undefined) obj[nested.key] = kids;
    return obj;
  });
}

/** Every object in a generated item tree, with its level. */
export function objectsOf(item: Record<string, unknown>, level: Level, out: Array<{ obj: Record<string, unknown>; level: Level; parent?: Record<string, unknown> }> = [], parent?: Record<string, unknown>) {
  out.push({ obj: item, level, ...(parent ? { parent } : {}) });
  const nested = level.nested;
  if (nested) {
    const kids = item[nested.key];
    if (Array.isArray(kids)) for (const k of kids) objectsOf(k as Record<string, unknown>, nested.level, out, item);
  }
  return out;
}

/** 3,000 CJK characters that do not repeat in any pattern pglz could compress: 9 KB in a btree entry. */
export function longName(): string {
  return Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000))).join('');
}

/** Values that fail most field parsers: wrong types, out-of-range numbers, not-a-date text. */
const JUNK: unknown[] = [
  {},
  [],
  [1],
  true,
  'x y',
  -1,
  1.5,
  2 ** 31,
  '99999999999',
  '12abc',
  'not a date',
  '13/45/2020',
  { DriverId: 1 },
  'maybe',
  // A last name too long for the btree index on drivers.last_name.
  [{ DriverId: 1, DriverLName: longName() }],
];

/**
 * The top-level fields of a level's schema that hold a key of its table (as the collector
 * declares them): only a bad value there rejects the item; any other field degrades to NULL.
 */
export function keyFields(level: Level): ReadonlySet<string> {
  return level.keyFields;
}

export type Damage = 'drop-required' | 'wrong-type' | 'out-of-range' | 'unstorable-text' | 'unstorable-key' | 'no-driver-id';

/**
 * Spoils `obj` in place so that its level must be rejected, and says how. Returns null when the
 * chosen kind of damage does not apply to this level (no required field, say).
 */
export function damage(obj: Record<string, unknown>, level: Level, kind: Damage, pick: number, bad: string): string | null {
  const shape = level.schema.shape as Record<string, z.ZodType>;
  const names = Object.keys(shape);
  const choose = <T>(xs: T[]): T | undefined => xs[Math.floor(pick * xs.length)];
  switch (kind) {
    case 'drop-required': {
      const name = choose(names.filter((n) => !optional(shape[n]!)));
      if (!name) return null;
      delete obj[name];
      return name;
    }
    // A wrong or out-of-range value rejects the item only in a key field (see src/sync/extract/degrade.ts).
    case 'wrong-type': {
      const keys = keyFields(level);
      const name = choose(names.filter((n) => keys.has(n)));
      if (!name) return null;
      // The field itself must be unusable: a bad value deeper inside (a driver's long last name) degrades alone.
      const breaks = (v: unknown) => {
        const r = shape[name]!.safeParse(v);
        return !r.success && r.error.issues.every((i) => i.path.every((p) => typeof p === 'number'));
      };
      const value = JUNK.find((v, i) => i >= Math.floor(pick * JUNK.length) && breaks(v)) ?? JUNK.find(breaks);
      if (value === undefined) return null;
      obj[name] = value;
      return name;
    }
    case 'out-of-range': {
      // Integers an int4 column cannot hold: JSON has no such limit, and ids are only numbers.
      const keys = keyFields(level);
      const name = choose(names.filter((n) => keys.has(n) && (shape[n] === id || shape[n] === optInt || shape[n] === optDecimal)));
      if (!name) return null;
      // numeric takes up to 131072 digits before the point; past that PostgreSQL refuses it.
      if (shape[name] === optDecimal) return (obj[name] = '9'.repeat(140_000)), name;
      const big = [2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, '2147483648', '99999999999'][Math.floor(pick * 5)]!;
      obj[name] = shape[name] === id && typeof big === 'number' && big < 0 ? 2 ** 40 : big;
      return name;
    }
    case 'unstorable-text':
      obj.Unmodelled = { note: bad };
      return 'Unmodelled';
    case 'unstorable-key':
      obj[`field${bad}`] = 1;
      return 'key';
    case 'no-driver-id': {
      if (!level.needsDriverId) return null;
      const drivers = obj.Driver as Array<Record<string, unknown>>;
      delete drivers[0]!.DriverId;
      return 'DriverId';
    }
  }
}
