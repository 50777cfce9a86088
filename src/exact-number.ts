/**
 * A JSON number a JavaScript number cannot carry: one JSON.parse makes non-finite (`1e400`
 * becomes Infinity, which JSON.stringify then writes as `null`), or an integer past
 * Number.MAX_SAFE_INTEGER, whose digits JSON.parse changes (123456789012345678901234567890
 * becomes 123456789012345680000000000000). A parsed body holds one of these in the number's
 * place (src/api/parse-json.ts finds them), with the number's text as sent.
 *
 * An object rather than the text as a string: a string would let a text column store the value
 * as if the upstream had sent text, make `raw` claim a string, and leave a field error unable to
 * tell "out of range" from "not a number". Every numeric parser (zod's and the fast path's)
 * refuses an object, so the field degrades to NULL with a field error that quotes the text; the
 * parsers that can hold the value whole (text, an unbounded `numeric`) take the text.
 *
 * The text is a private field: walkers that list an object's own fields (the shape tracker, the
 * secret masker, the storability check, the depth check) see none here.
 */
export class ExactNumber {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  /** The number as the upstream wrote it: `1e400`, `-123456789012345678901234567890`. */
  get text(): string {
    return this.#text;
  }

  /**
   * What a plain JSON.stringify writes: the digits as a string, never `null`. `jsonText` writes
   * the number itself; this only notes that it met one.
   */
  toJSON(): string {
    metExact = true;
    return this.#text;
  }
}

/** Set by ExactNumber.toJSON: JSON.stringify is synchronous, so one flag per call suffices. */
let metExact = false;

/** PostgreSQL's numeric limits: digits before the point, digits after it, and its exponent's bound. */
const NUMERIC_MAX_INTEGER_DIGITS = 131072;
const NUMERIC_MAX_SCALE = 16383;
// PostgreSQL 15 refuses an exponent of 2^30 - 1 even on a zero, 18 takes it: the stricter bound holds on both.
const NUMERIC_MAX_EXPONENT = 2 ** 30 - 1;
const JSON_NUMBER = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether PostgreSQL's `numeric` (which `jsonb` numbers are) holds the number `text` spells.
 * One it does not (`1e200000`) would fail a jsonb cast (22003) and with it the scope's whole
 * transaction, on every run.
 */
export function fitsNumeric(text: string): boolean {
  const m = JSON_NUMBER.exec(text);
  if (!m) return false;
  const [, int = '', frac = '', exp = '0'] = m;
  const e = Number(exp);
  if (Math.abs(e) >= NUMERIC_MAX_EXPONENT) return false;
  if (frac.length - e > NUMERIC_MAX_SCALE) return false;
  const digits = int + frac;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  if (leadingZeros === digits.length) return true; // zero, whatever its exponent
  // The power of ten of the leading digit, which numeric allows up to 131071.
  return int.length - leadingZeros - 1 + e < NUMERIC_MAX_INTEGER_DIGITS;
}

/**
 * `value` as JSON text, as JSON.stringify writes it, except that an ExactNumber is written as the
 * number it was sent as. One `numeric` cannot hold is written as a string of its text instead:
 * its digits are kept, and the row still loads. Values without one cost a single
 * JSON.stringify; the walk below runs only when that met an ExactNumber.
 */
export function jsonText(value: unknown): string | undefined {
  metExact = false;
  const json = JSON.stringify(value);
  return metExact ? exactText(value, '') : json;
}

/**
 * JSON.stringify's output for the JSON values pitwall holds (plain objects, arrays, scalars, and
 * anything with a toJSON), with ExactNumbers spliced in. Recursive: bodies nest at most
 * MAX_BODY_DEPTH levels.
 */
function exactText(value: unknown, key: string): string | undefined {
  if (value instanceof ExactNumber) return fitsNumeric(value.text) ? value.text : JSON.stringify(value.text);
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: (key: string) => unknown }).toJSON(key);
    if (v instanceof ExactNumber) return exactText(v, key);
  }
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((item, i) => exactText(item, String(i)) ?? 'null').join(',')}]`;
  const parts: string[] = [];
  for (const k of Object.keys(v)) {
    const text = exactText((v as Record<string, unknown>)[k], k);
    if (text !== undefined) parts.push(`${JSON.stringify(k)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}
