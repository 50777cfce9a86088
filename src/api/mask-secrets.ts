import { REDACTED, redact } from '../secrets.js';

/**
 * Secrets (the API key above all) in a response body, masked before the body is parsed: an
 * upstream that echoes the request (a link `https://…/?key=KEY` in every row) would otherwise put
 * the key into typed columns, every `raw`, field errors, rejects and kept bodies, which the
 * read-only BI role can read. Masking the text once covers all of them at the cost of a few
 * native substring searches per body.
 *
 * The plain, URL-encoded and JSON-escaped forms are found in the text (secrets.ts); a key of 8 or
 * more characters everywhere, a shorter one only where it stands as a value (`key=x`,
 * `"Link":"x"`), or every "x" in the data would go. One form hides from a text search: a string
 * that spells characters as `\uXXXX` escapes (or `/` as `\/`). Only a body holding such an escape has its parsed
 * strings checked as well, which is rare enough to cost nothing on the usual body.
 */
export interface MaskedText {
  text: string;
  /** How many occurrences were masked. */
  masked: number;
}

export function maskSecretsInText(text: string, secrets: readonly string[]): MaskedText {
  if (secrets.length === 0) return { text, masked: 0 };
  const out = redact(text, secrets);
  if (out === text) return { text, masked: 0 };
  return { text: out, masked: occurrences(out, REDACTED) - occurrences(text, REDACTED) };
}

/** Whether a JSON text may spell a secret in escapes a text search does not see: `\u0041`, or `\/` for `/`. */
export const mayHideEscaped = (text: string): boolean => text.includes('\\u') || text.includes('\\/');

/** Masks secrets in every string (and field name) of a parsed value, in place; returns how many were masked. */
export function maskSecretsInValue(value: unknown, secrets: readonly string[]): number {
  let masked = 0;
  const fix = (s: string): string => {
    const r = maskSecretsInText(s, secrets);
    masked += r.masked;
    return r.text;
  };
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i += 1) v[i] = visit(v[i]);
      return v;
    }
    if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const value = visit(obj[key]);
        const name = fix(key);
        if (name !== key) delete obj[key];
        Object.defineProperty(obj, name, { value, enumerable: true, writable: true, configurable: true });
      }
    }
    return v;
  };
  visit(value);
  return masked;
}

function occurrences(text: string, what: string): number {
  let n = 0;
  for (let i = text.indexOf(what); i !== -1; i = text.indexOf(what, i + what.length)) n += 1;
  return n;
}
