import { z } from 'zod';

import { ExactNumber, fitsNumeric } from '../../exact-number.js';

/**
 * Field parsers for the upstream's loose JSON. They are tolerant where the API is loose
 * (numbers as strings, 1/0 flags, empty strings for "no value") and strict where pitwall relies
 * on a value (keys). Each returns the value in the warehouse's column type.
 */

const NUMERIC_INT = /^-?\d+$/;
// PostgreSQL's numeric holds up to 131072 digits before the point and 16383 after it.
const NUMERIC_DECIMAL = /^-?\d{1,131072}(\.\d{1,16383})?$/;

/**
 * The warehouse's `integer` columns are 32-bit. JSON numbers have no such limit, and a value
 * past it would make PostgreSQL refuse the whole response's transaction (22003) on every run;
 * refused here, it rejects only its own item.
 */
const INT4_MIN = -(2 ** 31);
const INT4_MAX = 2 ** 31 - 1;
const int4 = () => z.number().int().min(INT4_MIN).max(INT4_MAX);

/** A key: a non-negative 32-bit integer, given as a number or a numeric string. Never optional. */
export const id = z.union([
  int4().nonnegative(),
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'expected a numeric id')
    .transform((s) => Number(s))
    .pipe(int4()),
]);

/** An optional 32-bit integer: number, numeric string, or ""/null/missing for none. */
export const optInt = z
  .union([int4(), z.string().trim().regex(NUMERIC_INT).transform(Number).pipe(int4()), z.literal(''), z.null()])
  .optional()
  .transform((v) => (v === '' || v === null || v === undefined ? null : v));

/**
 * A number JSON.parse cannot carry, as its text, when `fits` takes that text. An integer field
 * takes none (every ExactNumber is past its range), and its field error says so (degrade.ts).
 */
const exactNumberText = (fits: (text: string) => boolean = () => true) =>
  z.instanceof(ExactNumber).refine((n) => fits(n.text), 'out of range').transform((n) => n.text);

/** An optional decimal kept exact as a string for a `numeric` column. */
export const optDecimal = z
  .union([
    z.number().finite().transform((n) => String(n)),
    exactNumberText(fitsNumeric),
    z.string().trim().regex(NUMERIC_DECIMAL),
    z.literal(''),
    z.null(),
  ])
  .optional()
  .transform((v) => (v === '' || v === null || v === undefined ? null : v));

const TRUE_STRINGS = new Set(['true', '1', 'yes', 'y']);
const FALSE_STRINGS = new Set(['false', '0', 'no', 'n', '']);

/** A flag: true/false, 1/0, or their string forms in any case. Missing means false. */
export const flag = z
  .union([
    z.boolean(),
    z.literal(0).transform(() => false),
    z.literal(1).transform(() => true),
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((s) => TRUE_STRINGS.has(s) || FALSE_STRINGS.has(s), 'expected a flag')
      .transform((s) => TRUE_STRINGS.has(s)),
    z.null().transform(() => false),
  ])
  .optional()
  .transform((v) => v ?? false);

/** Optional text: "" and null become null; numbers are accepted and kept as their text. */
export const optText = z
  .union([z.string(), z.number().transform(String), exactNumberText(), z.null()])
  .optional()
  .transform((v) => (v === '' || v === null || v === undefined ? null : v));

/**
 * Optional text that ends up in an indexed column, bounded. A btree entry holds at most about
 * 2,700 bytes, and PostgreSQL refuses a longer value (54000) for the whole transaction, on every
 * run; 500 UTF-16 units are at most 1,500 bytes of UTF-8, far above any real name.
 */
export const optIndexedText = z
  .union([z.string().max(500), z.number().transform(String), exactNumberText((t) => t.length <= 500), z.null()])
  .optional()
  .transform((v) => (v === '' || v === null || v === undefined ? null : v));

/**
 * A car number is text: `00`, `0`, `7x` and `21A` are all different cars. A bare JSON number is
 * accepted (some clients send one) but `00` can only survive as a string.
 */
export const carNumber = optText;

const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?$/;

/**
 * Parses the upstream's US date-time without a zone (`5/11/2015 12:00:00 AM`, or `5/11/2015`)
 * into `YYYY-MM-DD HH:MM:SS` for a `timestamp` column. Impossible dates are rejected.
 */
export function parseUsDateTime(text: string): string | null {
  const m = US_DATE.exec(text.trim());
  if (!m) return null;
  const [, mo, d, y, h = '0', mi = '00', s = '00', ampm] = m;
  let hour = Number(h);
  if (ampm) {
    if (hour < 1 || hour > 12) return null;
    const pm = ampm.toLowerCase() === 'pm';
    hour = (hour % 12) + (pm ? 12 : 0);
  }
  const month = Number(mo);
  const day = Number(d);
  const year = Number(y);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  if (hour > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const p2 = (n: number | string) => String(n).padStart(2, '0');
  return `${y}-${p2(month)}-${p2(day)} ${p2(hour)}:${p2(mi)}:${p2(s)}`;
}

/**
 * What each field type takes, as a field error's reason says it: `expected a decimal number, got
 * "9.68 avg"` reads better than the validator's pattern. By identity, so a type the map lacks
 * falls back to the validator's own message.
 */
export function typeDescription(type: z.ZodType): string | undefined {
  return TYPE_DESCRIPTIONS.get(type) ?? (type instanceof z.ZodOptional ? TYPE_DESCRIPTIONS.get(type.unwrap() as z.ZodType) : undefined);
}

/** An optional US date-time; "" or null is none, anything unparseable is an error. */
export const optUsDateTime = z
  .union([z.string(), z.null()])
  .optional()
  .transform((v, ctx) => {
    if (v === '' || v === null || v === undefined) return null;
    const parsed = parseUsDateTime(v);
    if (parsed === null) {
      ctx.addIssue({ code: 'custom', message: `not a US date-time: ${JSON.stringify(v.slice(0, 40))}` });
      return z.NEVER;
    }
    return parsed;
  });

const TYPE_DESCRIPTIONS = new Map<z.ZodType, string>([
  [id, 'an id (a whole number, 0 or more, up to 2147483647)'],
  [optInt, 'a whole number (up to 2147483647 either way)'],
  [optDecimal, 'a decimal number'],
  [flag, 'a flag (true/false, 1/0, yes/no)'],
  [optText, 'text or a number'],
  [optIndexedText, 'text of at most 500 characters'],
  [optUsDateTime, 'a US date-time such as 5/11/2015 7:30 PM'],
]);
