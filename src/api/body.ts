import { ExactNumber } from '../exact-number.js';

import { PayloadError } from './errors.js';
import { parseJson } from './parse-json.js';

export interface ParsedBody {
  value: unknown;
  /** True when the body only parsed after collapsing repeated commas (the upstream's defect). */
  repaired: boolean;
  /** The JSON text `value` was parsed from: the body without BOM or JSONP wrapper, commas repaired. */
  text: string;
}

/** `callback( … );`, optionally after the `/**\/` guard some servers prepend. */
const JSONP = /^\s*(?:\/\*\*\/\s*)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\s*\(([\s\S]*)\)\s*;?\s*$/;

/** The JSON inside a JSONP wrapper (`jsoncallback=` makes the upstream add one), else `text`. */
export function stripJsonp(text: string): string {
  const match = JSONP.exec(text);
  return match?.[1] ?? text;
}

/**
 * Deepest nesting of arrays and objects pitwall accepts in a body. Real bodies nest about nine
 * levels (envelope, classes, races, results, driver); JSON.parse takes far deeper text, but
 * JSON.stringify (the response hash, `raw`) overflows the stack near 5,000 levels, so a body
 * that deep would fail its scope with a RangeError on every run.
 */
export const MAX_BODY_DEPTH = 64;

/** Whether `value` nests arrays and objects deeper than `max` levels. Iterative: never overflows. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v === null || typeof v !== 'object' || v instanceof ExactNumber) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(v)) if (child !== null && typeof child === 'object') stack.push({ v: child, depth: depth + 1 });
  }
  return false;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/**
 * Repairs the upstream's repeated-comma defect (api-reference §1, seen in /v2/points/):
 * outside string literals, a comma right after `,`, `[`, `{` or at the start is dropped, and a
 * comma right before `]` or `}` is dropped. Commas inside strings, escaped quotes included, are
 * never touched, which is why this walks the text instead of using a regex.
 */
export function collapseCommas(text: string): string {
  const out: string[] = [];
  // Index in `out` of the last character that is outside a string and not whitespace.
  let last = -1;
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      out.push(ch);
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') {
        inString = false;
        last = out.length - 1;
      }
      continue;
    }
    const prev = last === -1 ? '' : out[last];
    if (ch === ',' && (prev === '' || prev === ',' || prev === '[' || prev === '{')) continue;
    if ((ch === ']' || ch === '}') && prev === ',') out[last] = '';
    if (ch === '"') inString = true;
    out.push(ch);
    if (!WHITESPACE.has(ch)) last = out.length - 1;
  }
  return out.join('');
}

/**
 * Parses an upstream body: strips a BOM and a JSONP wrapper, then `JSON.parse` (parseJson: numbers
 * JSON.parse cannot carry become ExactNumbers); when that fails,
 * collapses repeated commas and tries once more. Throws `PayloadError` (with a bounded snippet)
 * when the text is still not JSON, e.g. a body truncated by a dropped connection.
 */
export function parseBody(text: string): ParsedBody {
  const json = stripJsonp(text.replace(/^\uFEFF/, ''));
  try {
    return { value: parseJson(json), repaired: false, text: json };
  } catch (firstError) {
    const collapsed = collapseCommas(json);
    if (collapsed !== json) {
      try {
        return { value: parseJson(collapsed), repaired: true, text: collapsed };
      } catch {
        // Fall through: report the original error, which points into the text as received.
      }
    }
    const what = text.trim() === '' ? 'body is empty' : 'body is not valid JSON';
    throw new PayloadError(what, { snippet: text, cause: firstError });
  }
}
