import { describe, expect, it } from 'vitest';

import { responseHash, scopeHash, textDigest as digestOfBytes } from '../../src/sync/hash.js';

const textDigest = (text: string) => digestOfBytes(Buffer.from(text));

const body = (ticks: number, cached: number, items: unknown[] = [{ EventId: 1, EventName: 'Opener' }]) =>
  `{"RequestValid":1,"RequestCached":${cached},"RequestCachedTicks":${ticks},"ItemsReturned":${items.length},"Events":${JSON.stringify(items)}}`;

describe('response hashes', () => {
  it('give two bodies that differ only in their cache fields the same text digest', () => {
    const a = textDigest(body(638000000000000000, 0));
    const b = textDigest(body(638000000123456789, 1));
    expect(a?.digest).toMatch(/^t:/);
    expect(a?.digest).toBe(b?.digest);
    expect(a?.fields.map((f) => f.name)).toEqual(['RequestCached', 'RequestCachedTicks']);
  });

  it('give bodies whose data differs different digests, in either form', () => {
    const one = body(1, 0, [{ EventId: 1, EventName: 'Opener' }]);
    const two = body(1, 0, [{ EventId: 1, EventName: 'Opener (rain date)' }]);
    expect(textDigest(one)?.digest).not.toBe(textDigest(two)?.digest);
    expect(responseHash(JSON.parse(one))).not.toBe(responseHash(JSON.parse(two)));
  });

  it('record the text digest when the fields it leaves out are the top-level cache fields', () => {
    const text = body(5, 1);
    expect(scopeHash(textDigest(text), JSON.parse(text))).toBe(textDigest(text)?.digest);
  });

  it('fall back to the parsed form when a cache field name sits only inside an item', () => {
    // The only "RequestCached" is an item's: leaving its value out would hide a change of data.
    const text = '{"RequestValid":1,"Events":[{"EventId":1,"RequestCached":7}]}';
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(textDigest(text)?.fields).toEqual([{ name: 'RequestCached', value: '7' }]);
    expect(scopeHash(textDigest(text), parsed)).toBe(responseHash(parsed));
    const changed = '{"RequestValid":1,"Events":[{"EventId":1,"RequestCached":8}]}';
    expect(scopeHash(textDigest(changed), JSON.parse(changed))).not.toBe(scopeHash(textDigest(text), parsed));
  });

  it('have no text digest when a cache field name occurs twice', () => {
    const text = '{"RequestValid":1,"RequestCached":1,"Events":[{"EventId":1,"RequestCached":7}]}';
    expect(textDigest(text)).toBeNull();
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(scopeHash(null, parsed)).toBe(responseHash(parsed));
  });

  it('ignore the cache field names inside string values, and names that only start like one', () => {
    const quoted = '{"RequestValid":1,"Events":[{"EventName":"\\"RequestCached\\":1","RequestCachedBy":"x"}]}';
    expect(textDigest(quoted)?.fields).toEqual([]);
  });

  it('read string and spaced values, multi-byte text around them included', () => {
    const a = textDigest('{"Name":"Häkkinen ✓","RequestCached" : "1","RequestCachedTicks":\n638,"Events":[]}');
    const b = textDigest('{"Name":"Häkkinen ✓","RequestCached" : "0","RequestCachedTicks":\n999,"Events":[]}');
    expect(a?.fields).toEqual([
      { name: 'RequestCached', value: '"1"' },
      { name: 'RequestCachedTicks', value: '638' },
    ]);
    expect(a?.digest).toBe(b?.digest);
  });
});
