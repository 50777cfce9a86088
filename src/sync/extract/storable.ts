import { ExactNumber } from '../../exact-number.js';

/**
 * Text PostgreSQL refuses. JSON can carry it (`"\u0000"`, or `"\ud800"`, half of a surrogate
 * pair), and JSON.parse hands it over, but a `text` column rejects U+0000 (22021) and `jsonb`
 * rejects both (22P05, 22P02). One such string anywhere in a response would fail the whole
 * scope's transaction, every run, so items holding one are found here and rejected alone.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const REPLACEMENT = '\ufffd';

/**
 * A JSON escape that may stand for U+0000 or a surrogate. Received text is decoded from UTF-8,
 * which has no lone surrogates (the decoder replaces them), and JSON allows no raw U+0000: in a
 * parsed body such text can only come from an escape. An escaped backslash before `u0000` also
 * matches, which only costs the item-by-item check.
 */
const MAYBE_ESCAPED_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Whether a body parsed from `text` certainly holds no string or key PostgreSQL cannot store:
 * one scan of the text instead of a walk over every value of every item (3-4 % of a first
 * sync's CPU).
 */
export function bodyIsStorable(text: string): boolean {
  return !MAYBE_ESCAPED_UNSTORABLE.test(text);
}

/**
 * A first, cheaper test: any NUL or surrogate at all. Nearly every string has neither, and the
 * lookarounds that tell a lone surrogate from a pair are then never run (3 times faster).
 */
const MAYBE_UNSTORABLE = /[\u0000\ud800-\udfff]/;
const isUnstorable = (s: string): boolean => MAYBE_UNSTORABLE.test(s) && UNSTORABLE.test(s);

/**
 * Whether `value` holds a string or object key PostgreSQL cannot store, leaving out the
 * top-level fields `skip`. Builds no paths: nearly every item holds none, and a path string
 * per field was most of the cost of the walk that reports where.
 */
function holdsUnstorable(value: unknown, skip: readonly string[]): boolean {
  const stack: unknown[] = [value];
  let top = true;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (isUnstorable(v)) return true;
    } else if (Array.isArray(v)) {
      for (const child of v) stack.push(child);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (top && skip.includes(k)) continue;
        if (isUnstorable(k)) return true;
        stack.push(child);
      }
    }
    top = false;
  }
  return false;
}

/**
 * Where in `value` the first string or object key PostgreSQL cannot store sits, as a path such
 * as `Driver.0.DriverFName`; null when there is none. `skip` leaves out top-level fields (the
 * nested lists whose items are checked on their own). Iterative, so no nesting depth can
 * overflow the stack.
 */
export function unstorableTextAt(value: unknown, skip: readonly string[] = []): string | null {
  if (!holdsUnstorable(value, skip)) return null;
  const stack: Array<{ v: unknown; path: string }> = [{ v: value, path: '' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return path || '(item)';
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    for (const [k, child] of Object.entries(v)) {
      if (path === '' && skip.includes(k)) continue;
      // The path goes into a reject's reason (a text column), so the bad name is shown repaired.
      if (UNSTORABLE.test(k)) return `${path ? `${path}.` : ''}${storableText(k)} (the field name)`;
      stack.push({ v: child, path: path ? `${path}.${k}` : k });
    }
  }
  return null;
}

/** `text` with U+0000 and lone surrogates replaced by U+FFFD, so it can be stored as evidence. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE_ALL, REPLACEMENT);
}

/**
 * A copy of a JSON value that PostgreSQL can store, for pitwall.rejects: the offending
 * characters (in strings and keys) become U+FFFD. Only for evidence of a rejected item; rows are
 * never altered this way. Recursive: the client refuses bodies nested deeper than MAX_BODY_DEPTH.
 */
export function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableJson);
  if (value === null || typeof value !== 'object' || value instanceof ExactNumber) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty: a field named "__proto__" (JSON.parse makes it an own field) stays a field.
    Object.defineProperty(out, storableText(k), { value: storableJson(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
