import { ExactNumber } from '../exact-number.js';

/**
 * JSON.parse, keeping the numbers it cannot carry. Node 20's JSON.parse gives a reviver no source
 * text, so `1e400` would arrive as Infinity (stored as `null`) and 123456789012345678901234567890
 * with other digits. Such numbers are found in the text and parsed again as ExactNumbers
 * (src/exact-number.ts), which keep the text as sent. A cheap pre-check (about 7 % of the
 * parse, on a results feed body) keeps the common body to one JSON.parse.
 *
 * `RequestCachedTicks` is left as JSON.parse reads it: .NET ticks are past 2^53 in every body,
 * they describe the cache rather than the data, and the kept body holds their digits.
 */

const TICKS_KEY = '"RequestCachedTicks"';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Whether the number starting at `start` (its sign, if any, just before) is the value of a `"RequestCachedTicks"` key. */
function isTicksValue(text: string, start: number): boolean {
  let i = start - 1;
  if (text.charCodeAt(i) === 0x2d) i -= 1;
  while (isSpace(text.charCodeAt(i))) i -= 1;
  if (text.charCodeAt(i) !== 0x3a) return false;
  i -= 1;
  while (isSpace(text.charCodeAt(i))) i -= 1;
  return text.startsWith(TICKS_KEY, i - TICKS_KEY.length + 1);
}

/**
 * A run of 16 digits, the shortest that can spell an integer past Number.MAX_SAFE_INTEGER.
 * Sampling every 16th character finds every such run (each holds one sampled position) at a
 * tenth of the cost of a regular expression, which tries every character.
 */
function hasLongDigitRun(text: string): boolean {
  const STRIDE = 16;
  for (let i = STRIDE - 1; i < text.length; i += STRIDE) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start -= 1;
    let end = i + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
    if (end - start >= STRIDE && !isTicksValue(text, start)) return true;
    i = end - (end % STRIDE) - 1; // the next sample after the run
  }
  return false;
}

/** An exponent of three digits or more: the only way a number with a shorter mantissa overflows. */
const LONG_EXPONENT = /\d[eE][+-]?\d{3}/;

/**
 * Whether `text` may hold a number JSON.parse cannot carry. Never false when it does: an integer
 * past 2^53 has 16 digits or more, and a non-finite number needs either that many before its
 * point or an exponent of 100 or more (15 digits times 10^99 is finite). Strings may make it say
 * true for nothing, which costs only the scan.
 */
export function mayHoldInexactNumber(text: string): boolean {
  return hasLongDigitRun(text) || LONG_EXPONENT.test(text);
}

/** A string literal (skipped whole, so digits inside strings never count) or a number token. */
const TOKEN = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

export interface InexactNumber {
  /** Where the token starts and ends in the text. */
  start: number;
  end: number;
  text: string;
}

/** JSON.stringify's text of an integer (`1.2345678901234568e+29`) in plain digits. */
function plainInteger(json: string): string {
  const m = /^(-?\d+)(?:\.(\d+))?e\+(\d+)$/.exec(json);
  if (!m) return json;
  const [, int = '', frac = '', exp = '0'] = m;
  return int + frac + '0'.repeat(Number(exp) - frac.length);
}

/**
 * Whether JSON.parse loses the number `token` spells: makes it non-finite, or (an integer past
 * 2^53) rounds it to a double that is written back as another number. 96867559183537540 parses
 * to ...536 but is written back as sent, and 10^21 is held exactly: both stay plain numbers.
 */
function isInexact(token: string): boolean {
  const n = Number(token);
  if (/[.eE]/.test(token)) return !Number.isFinite(n);
  return !Number.isSafeInteger(n) && plainInteger(JSON.stringify(n)) !== token;
}

/** The number tokens of a JSON text that JSON.parse would change, in order. `text` must be JSON. */
export function inexactNumbers(text: string): InexactNumber[] {
  const found: InexactNumber[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    const token = m[0];
    if (token.charCodeAt(0) === 0x22 || !isInexact(token) || isTicksValue(text, token.startsWith('-') ? m.index + 1 : m.index)) continue;
    found.push({ start: m.index, end: m.index + token.length, text: token });
  }
  return found;
}

/**
 * Control characters a string can hold only through a `\u00XX` escape: JSON forbids them raw,
 * and these have no short escape (`\b`, `\t`, `\n`, `\f`, `\r` do).
 */
const MARKS = Array.from({ length: 0x20 }, (_, c) => c).filter((c) => ![0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(c));

/**
 * Parses `text` as JSON.parse does (and throws as it does), with each number it cannot carry as
 * an ExactNumber. Those numbers are replaced in the text by strings `"\u00XX<n>"` (a control
 * character no string of this text spells, then the number's index), which the reparse's reviver
 * turns into ExactNumbers; as no genuine string starts with that character, none is mistaken for
 * one. A text that spells all 27 is parsed plainly: its digits stay in the kept body.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!mayHoldInexactNumber(text)) return value;
  const numbers = inexactNumbers(text);
  if (numbers.length === 0) return value;
  const mark = MARKS.find((c) => !new RegExp(`\\\\u00${c.toString(16).padStart(2, '0')}`, 'i').test(text));
  if (mark === undefined) return value;
  const escape = `\\u00${mark.toString(16).padStart(2, '0')}`;
  let marked = '';
  let at = 0;
  numbers.forEach((n, i) => {
    marked += `${text.slice(at, n.start)}"${escape}${i}"`;
    at = n.end;
  });
  marked += text.slice(at);
  return JSON.parse(marked, (_key, v: unknown) =>
    typeof v === 'string' && v.charCodeAt(0) === mark ? new ExactNumber(numbers[Number(v.slice(1))]!.text) : v,
  );
}
