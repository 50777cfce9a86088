import { describe, expect, it } from 'vitest';

import { ExactNumber, fitsNumeric, jsonText } from '../src/exact-number.js';

import { useDatabase } from './helpers/fixture.js';

describe('an ExactNumber as JSON text', () => {
  const db = useDatabase('postgres');

  it('is written as the number sent, where JSON.stringify would write null or other digits', () => {
    const item = { Start: new ExactNumber('1e400'), Place: new ExactNumber('-123456789012345678901234567890'), Name: '1e400', n: [1, null] };
    expect(JSON.stringify({ a: Infinity, b: 123456789012345678901234567890 })).toBe('{"a":null,"b":1.2345678901234568e+29}');
    expect(jsonText(item)).toBe('{"Start":1e400,"Place":-123456789012345678901234567890,"Name":"1e400","n":[1,null]}');
    // A plain JSON.stringify still keeps the digits, as a string.
    expect(JSON.stringify(item.Start)).toBe('"1e400"');
  });

  it('writes as JSON.stringify does for values without one, skipped fields and toJSON included', () => {
    const value = { a: 1, b: undefined, c: [undefined, () => 1], d: new Date(0), e: { '': 'x', '1': true, __proto__: null } };
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText({ x: new ExactNumber('1e400'), ...value })).toBe(`{"x":1e400,${JSON.stringify(value).slice(1)}`);
    expect(jsonText(undefined)).toBeUndefined();
  });

  it('is a jsonb number exactly when PostgreSQL numeric holds it, else a string of its text', async () => {
    const texts = ['1e400', '-1E+400', '123456789012345678901234567890', '1e131071', '1e131072', '1.5e131071', '12345e131068', '1e-16383', '1e-16384', '0.0e-16383', '0e1073741822', '0e1073741823', '1e1000000'];
    const fits = new Map<string, boolean>();
    for (const text of texts) {
      const ok = await db.pool.query(`SELECT $1::jsonb`, [`[${text}]`]).then(
        () => true,
        (err: { code?: string }) => (err.code === '22003' ? false : Promise.reject(err)),
      );
      fits.set(text, ok);
    }
    // PostgreSQL 18 (the embedded warehouse) takes one exponent more than 15 does: a zero times
    // 10^(2^30 - 1). fitsNumeric keeps the stricter bound, since one warehouse's bodies must load
    // on every server pitwall supports: a number it wrongly refuses is kept as a string, one it
    // wrongly took would fail its scope's whole transaction.
    const versionEdge = '0e1073741823';
    expect(fitsNumeric(versionEdge)).toBe(false);
    for (const text of texts) if (fitsNumeric(text)) expect(fits.get(text), text).toBe(true);
    const agreed = texts.filter((t) => t !== versionEdge);
    expect(new Map(agreed.map((t) => [t, fitsNumeric(t)]))).toEqual(new Map(agreed.map((t) => [t, fits.get(t)])));
    expect([...fits.values()]).toContain(false);
    const stored = await db.pool.query(`SELECT (v->>0)::numeric = 1e400 AS number, v->1 = to_jsonb('1e1000000'::text) AS string FROM (SELECT $1::jsonb AS v) s`, [
      jsonText([new ExactNumber('1e400'), new ExactNumber('1e1000000')]),
    ]);
    expect(stored.rows[0]).toEqual({ number: true, string: true });
  });
});
