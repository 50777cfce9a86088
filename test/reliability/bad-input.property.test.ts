import { isDeepStrictEqual } from 'node:util';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { DIMENSION_TABLES, ENDPOINTS, type Endpoint } from '../../src/sync/endpoints.js';
import { without } from '../../src/sync/extract/collector.js';
import type { Extracted } from '../../src/sync/extract/types.js';

import { damage, LEVELS, objectsOf, storableJson, unstorableString, validObject, type Damage } from './helpers/items.js';
import { checkStorable } from './helpers/storable-rows.js';

/**
 * Garbage at every endpoint's parser. Whatever the items are, `extract` returns (never throws),
 * counts every item, and every row it returns is one PostgreSQL can store; valid items all become
 * rows and a spoiled one becomes a reject with a reason, while its siblings still load.
 */

const RUNS = process.env.PITWALL_SOAK ? 1000 : 60;
const SEED = { year: 2024, scheduleId: 77, eventId: 901, classId: 3 };

function run(ep: Endpoint, items: unknown[], header: Record<string, unknown> = {}): Extracted {
  const body = { RequestValid: 1, ...header, [ep.arrayKey]: items };
  return ep.extract(items, ep.params(SEED), body);
}

const rowRaws = (x: Extracted, table: string) => (x.rows[table as keyof Extracted['rows']] ?? []).map((r) => r.raw);
const expectedRaw = (obj: Record<string, unknown>, key: string | undefined) => (key ? without(obj, key) : obj);
/** Whether `obj` is `value` or inside it, by identity. */
const holds = (value: unknown, obj: object): boolean => value === obj || (typeof value === 'object' && value !== null && Object.values(value).some((v) => holds(v, obj)));
/** A valid object becomes a row, unless it (or an object it is in) repeats the key of a sibling before it: then it is a duplicate, set aside. */
const loaded = (x: Extracted, obj: Record<string, unknown>, table: string, key: string | undefined) =>
  rowRaws(x, table).some((raw) => isDeepStrictEqual(raw, expectedRaw(obj, key))) || x.duplicates.some((d) => holds(d.payload, obj));

/** Anything JSON.parse can give, odd strings and keys included (U+0000 and lone surrogates too). */
const anyJson = fc.jsonValue({ maxDepth: 4, stringUnit: fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('\u0000', '\ud800', '\udc00')) });

describe.each(ENDPOINTS.map((ep) => [ep.name, ep] as const))('the %s parser', (_name, ep) => {
  const level = LEVELS[ep.name];

  it('never throws on random values, counts every item, and returns only storable rows and reasoned rejects', () => {
    const item = fc.oneof(anyJson, validObject(level), fc.tuple(validObject(level), fc.dictionary(fc.string(), anyJson, { maxKeys: 3 })).map(([o, x]) => ({ ...o, ...x })));
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.dictionary(fc.string(), anyJson, { maxKeys: 3 }), (items, header) => {
        const x = run(ep, items, header);
        expect(x.itemCount).toBe(items.length);
        for (const r of x.rejects) expect(r.reason).toMatch(/\S/);
        checkStorable(x);
      }),
      { numRuns: RUNS },
    );
  });

  it('turns every valid item into rows, unmodelled fields and odd text kept in raw, with no rejects', () => {
    fc.assert(
      fc.property(fc.array(validObject(level), { maxLength: 4 }), (items) => {
        const x = run(ep, items);
        expect(x.rejects).toEqual([]);
        for (const { obj, level: l } of items.flatMap((i) => objectsOf(i, level))) {
          if (!l.table || DIMENSION_TABLES.has(l.table)) continue;
          expect(loaded(x, obj, l.table, l.nested?.key)).toBe(true);
        }
        checkStorable(x);
      }),
      { numRuns: RUNS },
    );
  });

  it('rejects a spoiled object with its reason and payload, and still loads its siblings', () => {
    const kinds: Damage[] = ['drop-required', 'wrong-type', 'out-of-range', 'unstorable-text', 'unstorable-key', 'no-driver-id'];
    fc.assert(
      fc.property(
        fc.array(validObject(level), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(...kinds),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        unstorableString,
        (generated, which, kind, pick, bad) => {
          // A copy: fast-check reuses generated values while shrinking, and damage() edits in place.
          const items = JSON.parse(JSON.stringify(generated)) as Array<Record<string, unknown>>;
          const all = items.flatMap((i) => objectsOf(i, level));
          const target = all[which % all.length]!;
          // The spoiled object and everything inside it, taken before the damage can hide its children.
          const spoiled = new Set(objectsOf(target.obj, target.level).map((o) => o.obj));
          const before = JSON.stringify(target.obj);
          const field = damage(target.obj, target.level, kind, pick, bad);
          fc.pre(field !== null && JSON.stringify(target.obj) !== before);
          const x = run(ep, items);
          // Two generated items with one key (21 and "21" alike): the later is set aside whole as a
          // copy, in `duplicates`, the spoiled object inside it with it (the duplicate rule's own
          // tests cover that case). A spoiled object outside every copy must still be rejected.
          fc.pre(!x.duplicates.some((d) => holds(d.payload, target.obj)));
          const rejected = x.rejects.filter((r) => r.payload === target.obj);
          expect(rejected).toHaveLength(1);
          expect(rejected[0]!.reason).toMatch(/\S/);
          for (const { obj, level: l } of all) {
            if (!l.table || DIMENSION_TABLES.has(l.table) || spoiled.has(obj)) continue;
            expect(loaded(x, obj, l.table, l.nested?.key)).toBe(true);
          }
          checkStorable(x);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('unmodelled fields', () => {
  it('are kept in raw, never a reason to reject', () => {
    const ep = ENDPOINTS.find((e) => e.name === 'schedules')!;
    fc.assert(
      fc.property(validObject(LEVELS.schedules), fc.dictionary(fc.string({ minLength: 1 }).map((k) => `X${k}`), storableJson, { minKeys: 1, maxKeys: 4 }), (item, extra) => {
        const x = run(ep, [{ ...item, ...extra }]);
        expect(x.rejects).toEqual([]);
        // Counting them is the shape tracker's (test/sync/shape-drift.test.ts); here: nothing is lost.
        expect(x.rows.schedules?.[0]?.raw).toMatchObject(extra);
      }),
      { numRuns: RUNS },
    );
  });
});
