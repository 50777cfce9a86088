import { REDACTED, redact, secretForms } from '../secrets.js';

/**
 * Secrets (the API key above all) in a response body, masked before anything reads the body: an
 * upstream that echoes the request (a link `https://…/?key=KEY` in every row) would otherwise put
 * the key into typed columns, every `raw`, field errors, rejects and kept bodies, which the
 * read-only BI role can read.
 *
 * Cost, per body: the usual body holds no secret, so the check is a native byte search
 * (Buffer.indexOf) for each form of each secret (plain, URL-encoded, JSON-escaped) in the bytes
 * as received, before they are decoded, digested or parsed. Only a body that holds one is decoded
 * early and has its text masked (secrets.ts's `redact`), so the unchanged-body digest and the
 * kept body are both of the masked text. Walking every parsed string would cost about as much as
 * extracting the rows; it is done only where a text search cannot be sound (mayHideEscaped).
 *
 * Short secrets follow the logs' rule (secrets.ts, MASK_ANYWHERE_MIN_LENGTH): one of 8 or more
 * characters is masked wherever it occurs; a shorter one (`MRP_API_KEY=x`) only where it stands
 * as a value: a whole JSON string (an object's value, an array's element), a URL parameter's
 * value (`key=x`, also URL-encoded inside another URL), after `Bearer `. Masking a short key
 * everywhere would blank every "x" in the data; masking it nowhere would store an echoed one.
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

/** The forms of the secrets as UTF-8 bytes, per secrets list (one list per client or rebuild). */
const byteForms = new WeakMap<readonly string[], Buffer[]>();

function formsAsBytes(secrets: readonly string[]): Buffer[] {
  let forms = byteForms.get(secrets);
  if (!forms) {
    forms = secretForms(secrets).map((f) => Buffer.from(f, 'utf8'));
    byteForms.set(secrets, forms);
  }
  return forms;
}

export interface MaskedBytes {
  /** The bytes to digest: those received when nothing was masked, else the masked text's. */
  bytes: Uint8Array;
  /** The decoded, masked text; null when no form of a secret occurs in the bytes (decode them as usual). */
  text: string | null;
  masked: number;
}

/**
 * A body's bytes with every form of the secrets masked, looked for byte-wise first so that a body
 * without one (nearly all of them) is neither decoded nor copied here.
 */
export function maskSecretsInBytes(bytes: Uint8Array, secrets: readonly string[]): MaskedBytes {
  if (secrets.length === 0) return { bytes, text: null, masked: 0 };
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!formsAsBytes(secrets).some((form) => buf.includes(form))) return { bytes, text: null, masked: 0 };
  const { text, masked } = maskSecretsInText(new TextDecoder().decode(bytes), secrets);
  // A short secret found only inside other words is not masked: the bytes as received stay the digest's.
  return masked === 0 ? { bytes, text, masked } : { bytes: Buffer.from(text, 'utf8'), text, masked };
}

/** Per secrets list: the UTF-16 code units any form of a secret is made of. */
const unitSets = new WeakMap<readonly string[], Set<number>>();

function unitsOf(secrets: readonly string[]): Set<number> {
  let units = unitSets.get(secrets);
  if (!units) {
    units = new Set<number>();
    for (const form of secretForms(secrets)) for (let i = 0; i < form.length; i += 1) units.add(form.charCodeAt(i));
    unitSets.set(secrets, units);
  }
  return units;
}

/**
 * Whether a JSON text may spell a secret in a way the text search does not see. The search finds
 * each secret as JSON.stringify writes it; any other spelling of a string's characters in JSON
 * text is an escape: `\/` for `/`, or `\uXXXX` for any UTF-16 code unit (PHP's json_encode writes
 * both by default). So a secret can hide only behind an escape that stands for a code unit of
 * one of its forms: `\/` when a form holds a `/`, `\uXXXX` when XXXX is such a unit. Every other
 * escape (`\u00e9` in a driver's name, `\/` in a URL when no key holds a `/`) is passed over, and
 * the parsed value is walked only for a body with an escape that could matter. The test is sound,
 * not exact: `\\u0041` (an escaped backslash, then "u0041") counts too, at the cost of a walk.
 */
export function mayHideEscaped(text: string, secrets: readonly string[]): boolean {
  if (secrets.length === 0) return false;
  const units = unitsOf(secrets);
  if (units.has(0x2f) && text.includes('\\/')) return true;
  for (let i = text.indexOf('\\u'); i !== -1; i = text.indexOf('\\u', i + 2)) {
    const unit = Number.parseInt(text.slice(i + 2, i + 6), 16);
    if (units.has(unit)) return true;
  }
  return false;
}

/**
 * Masks secrets in every string (and field name) of a parsed value, in place; returns how many
 * were masked. A string that is the secret whole is masked whatever its length: it stands as a value.
 */
export function maskSecretsInValue(value: unknown, secrets: readonly string[]): number {
  let masked = 0;
  const fix = (s: string): string => {
    if (secrets.includes(s)) {
      masked += 1;
      return REDACTED;
    }
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
        // defineProperty: a field named "__proto__" stays a field.
        Object.defineProperty(obj, name, { value, enumerable: true, writable: true, configurable: true });
      }
    }
    return v;
  };
  visit(value);
  return masked;
}

/**
 * A parsed body's secrets masked where the text search could not see them (an escape that may
 * spell one, see mayHideEscaped); returns how many. Nothing is walked for a body without one.
 */
export function maskEscapedSecrets(json: string, body: unknown, secrets: readonly string[]): number {
  return mayHideEscaped(json, secrets) ? maskSecretsInValue(body, secrets) : 0;
}

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const SHORT_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A bad body's text for an error's snippet (kept in pitwall.rejects), with the secrets masked.
 * Such a text need not parse, so a secret spelled in escapes cannot be found in its parsed
 * strings: when one may hide there, the snippet is shown with its escapes decoded, then masked.
 */
export function maskSnippet(text: string, secrets: readonly string[]): string {
  const plain = mayHideEscaped(text, secrets)
    ? text.replace(JSON_ESCAPE, (_m, hex: string | undefined, ch: string | undefined) => (hex ? String.fromCharCode(Number.parseInt(hex, 16)) : SHORT_ESCAPES[ch!]!))
    : text;
  return redact(plain, secrets);
}

function occurrences(text: string, what: string): number {
  let n = 0;
  for (let i = text.indexOf(what); i !== -1; i = text.indexOf(what, i + what.length)) n += 1;
  return n;
}
