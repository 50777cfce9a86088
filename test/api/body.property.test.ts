import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { collapseCommas, parseBody } from '../../src/api/body.js';

/** Serializes like JSON.stringify, but with `commas(i)` commas between members (1 = valid JSON). */
function serialize(value: unknown, commas: () => number): string {
  const sep = () => ','.repeat(commas());
  if (Array.isArray(value)) return `[${value.map((v) => serialize(v, commas)).join(sep())}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${serialize(v, commas)}`);
    return `{${members.join(sep())}}`;
  }
  return JSON.stringify(value);
}

describe('comma repair, for any JSON value', () => {
  it('gives back the same value when members are separated by runs of commas', () => {
    const runs = fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.jsonValue(), runs, (value, counts) => {
        let i = 0;
        const text = serialize(value, () => counts[i++ % counts.length] ?? 1);
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        const parsed = parseBody(text);
        expect(parsed.value).toEqual(expected);
        expect(parsed.repaired).toBe(text !== JSON.stringify(value));
      }),
    );
  });

  it('never changes a string literal, whatever commas and brackets it holds', () => {
    const unit = fc.constantFrom(',', ',', '"', '\\', '[', ']', '{', '}', 'a', ' ', '\n');
    fc.assert(
      fc.property(fc.string({ unit }), (s) => {
        const literal = JSON.stringify(s);
        expect(collapseCommas(literal)).toBe(literal);
        expect(parseBody(`{"s":${literal},,"n":[1,,2]}`).value).toEqual({ s, n: [1, 2] });
      }),
    );
  });
});
