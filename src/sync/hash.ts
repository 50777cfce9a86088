import { createHash } from 'node:crypto';

import { CACHE_FIELDS } from '../api/schemas/envelope.js';
import { jsonText } from '../exact-number.js';

/**
 * What a scope's response hash is made from, so that an identical response can be skipped:
 * the data, not the cache fields (RequestCached, RequestCachedTicks), which change with every
 * cache refill while the data does not.
 *
 * Two forms, never equal to each other:
 * - the digest of the body text with the cache fields' values left out (`t:` prefix). An
 *   unchanged response is recognised from its text alone, before it is parsed: parsing,
 *   checking and re-serialising were most of the CPU of a sync that found nothing new.
 * - the digest of the parsed body re-serialised without the cache fields (no prefix), for a body
 *   whose text digest cannot be trusted to cover all of its data (see `scopeHash`).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
/** Bytes a JSON number, true, false or null is spelled with. */
const SCALAR_BYTES = new Set(Buffer.from('-+.0123456789eEtruefalsn'));

/** Every cache field name starts with this; found with Buffer.indexOf, a native search. */
const NAME_PREFIX = Buffer.from('"RequestCached');
const NAMES = CACHE_FIELDS.map((name) => ({ name, bytes: Buffer.from(`"${name}"`) }));

/** Where the value after `"name"` at `at` starts and ends, when `"name"` is a key with a scalar value. */
function valueAfter(body: Buffer, at: number): { start: number; end: number } | null {
  let i = at;
  while (isSpace(body[i])) i += 1;
  if (body[i] !== COLON) return null;
  i += 1;
  while (isSpace(body[i])) i += 1;
  const start = i;
  if (body[i] === QUOTE) {
    for (i += 1; i < body.length; i += 1) {
      if (body[i] === BACKSLASH) i += 1;
      else if (body[i] === QUOTE) return { start, end: i + 1 };
    }
    return null;
  }
  while (i < body.length && SCALAR_BYTES.has(body[i]!)) i += 1;
  return i > start ? { start, end: i } : null;
}

export interface TextDigest {
  /** `t:` and the SHA-256 (base64url) of the body without the cache fields' values. */
  digest: string;
  /** The cache fields found in the body, each once, with their values as written. */
  fields: Array<{ name: string; value: string }>;
}

/**
 * The digest of a body's bytes with the values of its cache fields left out; null when a cache
 * field's name occurs more than once, where leaving one out could hide a change of data that
 * happens to use the same name. A name inside a string value does not count: there its quotes
 * are escaped, so `"RequestCached"` never appears.
 */
export function textDigest(body: Uint8Array): TextDigest | null {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const hash = createHash('sha256');
  const fields: TextDigest['fields'] = [];
  let at = 0;
  for (let found = buf.indexOf(NAME_PREFIX); found !== -1; found = buf.indexOf(NAME_PREFIX, found + 1)) {
    const name = NAMES.find((n) => buf.subarray(found, found + n.bytes.length).equals(n.bytes));
    if (!name) continue;
    const value = valueAfter(buf, found + name.bytes.length);
    if (!value) continue;
    if (fields.some((f) => f.name === name.name)) return null;
    fields.push({ name: name.name, value: buf.toString('utf8', value.start, value.end) });
    hash.update(buf.subarray(at, value.start));
    at = value.end;
  }
  hash.update(buf.subarray(at));
  return { digest: `t:${hash.digest('base64url')}`, fields };
}

/**
 * Whether the fields a text digest left out are exactly the body's own top-level cache fields
 * (present there, with the values found in the text). Only then does the digest cover every
 * piece of data: a text whose only `"RequestCached"` sits inside an item would otherwise have
 * that item's value ignored.
 */
function coversData(d: TextDigest, body: Record<string, unknown>): boolean {
  return d.fields.every((f) => {
    if (!Object.hasOwn(body, f.name)) return false;
    try {
      return Object.is(JSON.parse(f.value), body[f.name]);
    } catch {
      return false; // Not a JSON value (`1e`): not what the body holds at the top level.
    }
  });
}

/** The digest of the parsed body without its cache fields. */
export function responseHash(body: Record<string, unknown>): string {
  const data: Record<string, unknown> = { ...body };
  for (const f of CACHE_FIELDS) delete data[f];
  return createHash('sha256').update(jsonText(data)!).digest('base64url');
}

/**
 * A body's hash with a `PITWALL_SHAPES` file's part for its endpoint mixed in (`s:` prefix), so
 * that a body loaded under other overrides is not skipped as unchanged; the hash itself without
 * overrides, so a warehouse that never had a file keeps every hash it recorded.
 */
export function saltedHash(hash: string, salt: string | undefined): string {
  return salt ? `s:${createHash('sha256').update(salt).update('\u0000').update(hash).digest('base64url')}` : hash;
}

/**
 * The hash recorded for a scope's response: its text digest when that covers all of its data,
 * else the digest of the parsed body. A later response whose text digest equals a recorded one
 * therefore holds the same data, and need not be parsed.
 */
export function scopeHash(digest: TextDigest | null, body: Record<string, unknown>): string {
  return digest && coversData(digest, body) ? digest.digest : responseHash(body);
}
