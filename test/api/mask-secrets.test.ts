import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { maskEscapedSecrets, maskSecretsInBytes, maskSecretsInValue, maskSnippet, mayHideEscaped } from '../../src/api/mask-secrets.js';
import { REDACTED } from '../../src/secrets.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A JSON text of `value` with every character of each string written as a `\u` escape. */
const spelled = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) => (typeof v === 'string' ? `@@${[...v].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('.')}@@` : v)).replace(
    /@@([0-9a-f.]*)@@/g,
    (_m, hex: string) => (hex ? hex.split('.').map((h) => `\\u${h}`).join('') : ''),
  );

/** Mask a body as the client does: the bytes first, then the parsed value where an escape may hide the key. */
function maskBody(json: string, secrets: string[]): { text: string; value: unknown; masked: number } {
  const screened = maskSecretsInBytes(utf8(json), secrets);
  const text = screened.text ?? json;
  const value: unknown = JSON.parse(text);
  return { text, value, masked: screened.masked + maskEscapedSecrets(text, value, secrets) };
}

describe('a long key in a body', () => {
  const key = 'a/key"wïth+chars-01';
  const secrets = [key];

  it('is masked in its plain, URL-encoded and JSON-escaped forms, and counted once each', () => {
    const json = JSON.stringify({ Link: `https://example.invalid/?key=${encodeURIComponent(key)}`, Name: `Driver ${key}`, List: [key] });
    const { text, value, masked } = maskBody(json, secrets);
    expect(masked).toBe(3);
    expect(value).toEqual({ Link: `https://example.invalid/?key=${REDACTED}`, Name: `Driver ${REDACTED}`, List: [REDACTED] });
    expect(text).not.toContain(JSON.stringify(key).slice(1, -1));
  });

  it('leaves the bytes of a body without it untouched (nothing decoded, nothing copied)', () => {
    const bytes = utf8(JSON.stringify({ Name: 'a/key"wïth+chars-0', Link: 'https:\\/\\/x' }));
    const screened = maskSecretsInBytes(bytes, secrets);
    expect(screened).toEqual({ bytes, text: null, masked: 0 });
  });

  it('is found behind `\\u` and `\\/` escapes, which only the parsed value shows', () => {
    const { value, masked } = maskBody(spelled({ Name: key, Note: `x ${key} y` }), secrets);
    expect(value).toEqual({ Name: REDACTED, Note: `x ${REDACTED} y` });
    expect(masked).toBe(2);
    const slashed = JSON.stringify({ Link: key }).replaceAll('/', '\\/');
    expect(maskBody(slashed, secrets).value).toEqual({ Link: REDACTED });
  });

  it('makes the parsed value walk only for an escape that stands for a character of the key', () => {
    // PHP's json_encode escapes every `/` and non-ASCII character: for a key without either, no walk.
    const php = '{"Name":"Ren\\u00e9","Link":"https:\\/\\/example.invalid\\/"}';
    expect(mayHideEscaped(php, ['plainkey0123'])).toBe(false);
    expect(mayHideEscaped(php, [key])).toBe(true);
    expect(mayHideEscaped('{"a":"\\u0061"}', ['plainkey0123'])).toBe(true);
    expect(mayHideEscaped('{"a":"\\u0061"}', [])).toBe(false);
  });

  it('is masked in a snippet of a body that does not parse, escapes included', () => {
    const cut = spelled({ Link: key, Rest: 'x' }).slice(0, -6);
    expect(() => JSON.parse(cut) as unknown).toThrow();
    const snippet = maskSnippet(cut, secrets);
    expect(snippet).toContain(REDACTED);
    expect(snippet).not.toContain(key);
  });

  it('is never left in a body however its strings are spelled (property)', () => {
    const filler = fc.string({ maxLength: 12 });
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, filler, fc.boolean()), { minLength: 1, maxLength: 5 }), fc.constantFrom('plain', 'spelled', 'slashed'), (parts, how) => {
        const value = parts.map(([before, after, encoded]) => `${before}${encoded ? encodeURIComponent(key) : key}${after}`);
        const json = how === 'spelled' ? spelled(value) : how === 'slashed' ? JSON.stringify(value).replaceAll('/', '\\/') : JSON.stringify(value);
        const out = maskBody(json, secrets);
        const strings = out.value as string[];
        for (const s of strings) {
          expect(s).not.toContain(key);
          expect(s).not.toContain(encodeURIComponent(key));
        }
        expect(out.masked).toBeGreaterThanOrEqual(parts.length);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a short key (fewer than 8 characters) in a body', () => {
  const key = 'k3y';
  const secrets = [key];

  it('is masked where it stands as a value: a whole string, an element, a URL parameter', () => {
    const json = JSON.stringify({ Link: `https://example.invalid/?key=${key}&page=2`, Name: key, List: ['a', key], Driver: 'Mk3yer', k3y: 1, Note: `see k3y below` });
    const { value, masked } = maskBody(json, secrets);
    expect(value).toEqual({ Link: `https://example.invalid/?key=${REDACTED}&page=2`, Name: REDACTED, List: ['a', REDACTED], Driver: 'Mk3yer', k3y: 1, Note: 'see k3y below' });
    expect(masked).toBe(3);
  });

  it('is masked as a whole string spelled in escapes, and not inside words', () => {
    const value = { Name: key, Driver: 'Mk3yer' };
    const out = maskBody(spelled(value), secrets);
    expect(out.value).toEqual({ Name: REDACTED, Driver: 'Mk3yer' });
    expect(out.masked).toBe(1);
    expect(maskSecretsInValue(['k3y', 'xk3y'], secrets)).toBe(1);
  });

  it('leaves a body where it only occurs inside words as it came', () => {
    const bytes = utf8(JSON.stringify({ Driver: 'Mk3yer' }));
    const screened = maskSecretsInBytes(bytes, secrets);
    expect(screened.bytes).toBe(bytes);
    expect(screened.masked).toBe(0);
    expect(decode(screened.bytes)).toBe('{"Driver":"Mk3yer"}');
  });
});
