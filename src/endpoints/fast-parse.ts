import { z } from 'zod';

import { carNumber, flag, id, optDecimal, optIndexedText, optInt, optText, optUsDateTime, parseUsDateTime } from '../api/schemas/primitives.js';

import type { Level } from './declare.js';
import { driver, driverList } from './driver.js';

/**
 * A level's items parsed without zod when every field is in its usual form, with exactly the
 * output zod gives for the fields the extractor reads. zod's unions, pipes and transforms were
 * most of the validation time of a sync (a tenth of the process' CPU in a profile of a first
 * sync) and much of its garbage; a value in any unusual form (a key as padded text, a date that
 * does not parse, anything that fails) returns FALLBACK, and the item goes through zod, which
 * stays the one definition of what is valid and the one source of field errors.
 * test/endpoints/fast-parse.property.test.ts holds the two to the same outputs.
 */
export const FALLBACK: unique symbol = Symbol('fall back to zod');

type Check = (value: unknown) => unknown;

const INT4_MIN = -(2 ** 31);
const INT4_MAX = 2 ** 31 - 1;
const DIGITS = /^\d+$/;
const SIGNED_DIGITS = /^-?\d+$/;
// The decimal form zod takes, kept short: a longer number goes through zod (and its limits).
const DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/;
const TRUE_STRINGS = new Set(['true', '1', 'yes', 'y']);
const FALSE_STRINGS = new Set(['false', '0', 'no', 'n', '']);

const isInt4 = (n: number) => Number.isInteger(n) && n >= INT4_MIN && n <= INT4_MAX;

const idCheck: Check = (v) => {
  if (typeof v === 'number') return isInt4(v) && v >= 0 ? v : FALLBACK;
  if (typeof v === 'string' && DIGITS.test(v)) {
    const n = Number(v);
    return n <= INT4_MAX ? n : FALLBACK;
  }
  return FALLBACK;
};

const optIntCheck: Check = (v) => {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number') return isInt4(v) ? v : FALLBACK;
  if (typeof v === 'string' && SIGNED_DIGITS.test(v)) {
    const n = Number(v);
    return isInt4(n) ? n : FALLBACK;
  }
  return FALLBACK;
};

const optDecimalCheck: Check = (v) => {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : FALLBACK;
  return typeof v === 'string' && DECIMAL.test(v) ? v : FALLBACK;
};

const flagCheck: Check = (v) => {
  if (typeof v === 'boolean') return v;
  if (v === undefined || v === null) return false;
  if (v === 0) return false;
  if (v === 1) return true;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (TRUE_STRINGS.has(s)) return true;
    if (FALSE_STRINGS.has(s)) return false;
  }
  return FALLBACK;
};

const textCheck =
  (max: number): Check =>
  (v) => {
    if (v === undefined || v === null || v === '') return null;
    if (typeof v === 'string') return v.length <= max ? v : FALLBACK;
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : FALLBACK;
    return FALLBACK;
  };

const dateCheck: Check = (v) => {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'string' ? (parseUsDateTime(v) ?? FALLBACK) : FALLBACK;
};

const listCheck: Check = (v) => (v === undefined || Array.isArray(v) ? v : FALLBACK);

const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);

const PRIMITIVES = new Map<z.ZodType, Check>([
  [id, idCheck],
  [optInt, optIntCheck],
  [optDecimal, optDecimalCheck],
  [flag, flagCheck],
  [optText, textCheck(Infinity)],
  [carNumber, textCheck(Infinity)],
  [optIndexedText, textCheck(500)],
  [optUsDateTime, dateCheck],
]);

/** The check of a field's type, or null when there is none (the level then always goes through zod). */
function checkOf(type: z.ZodType): Check | null {
  const direct = PRIMITIVES.get(type);
  if (direct) return direct;
  if (type === driverList) return driversCheck;
  if (type instanceof z.ZodOptional) {
    const inner = type.unwrap() as z.ZodType;
    const check = PRIMITIVES.get(inner);
    if (check) return optional(check);
    if (inner instanceof z.ZodArray && inner.element instanceof z.ZodUnknown) return listCheck;
  }
  return null;
}

type ObjectParser = (value: unknown) => Record<string, unknown> | typeof FALLBACK;

function objectParser(shape: Record<string, z.ZodType>): ObjectParser | null {
  const fields: Array<[string, Check]> = [];
  for (const [name, type] of Object.entries(shape)) {
    const check = checkOf(type);
    if (!check) return null;
    fields.push([name, check]);
  }
  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return FALLBACK;
    const item = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [name, check] of fields) {
      const parsed = check(item[name]);
      if (parsed === FALLBACK) return FALLBACK;
      if (parsed !== undefined) out[name] = parsed;
    }
    return out;
  };
}

const driverParser = objectParser(driver.shape as Record<string, z.ZodType>)!;

function driversCheck(v: unknown): unknown {
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return FALLBACK;
  const out = new Array<unknown>(v.length);
  for (let i = 0; i < v.length; i += 1) {
    const d = driverParser(v[i]);
    if (d === FALLBACK) return FALLBACK;
    out[i] = d;
  }
  return out;
}

const parsers = new WeakMap<Level, ObjectParser | null>();

/** The level's item with its declared fields parsed, as zod would parse them, or FALLBACK. */
export function fastParse(level: Level, value: unknown): Record<string, unknown> | typeof FALLBACK {
  let parser = parsers.get(level);
  if (parser === undefined) parsers.set(level, (parser = objectParser((level.schema as unknown as z.ZodObject).shape as Record<string, z.ZodType>)));
  return parser ? parser(value) : FALLBACK;
}
