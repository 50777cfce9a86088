import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { ENDPOINTS } from '../../src/endpoints/registry.js';
import { shapeCatalog } from '../../src/shapes/catalog.js';
import { parseShapesFile, ShapesFileError } from '../../src/shapes/file.js';

const catalog = shapeCatalog(ENDPOINTS);

/** A valid file, from the declarations: some endpoints, levels and fields with aliases and coercions. */
const coercion = fc.oneof(
  fc.string({ minLength: 1, maxLength: 5 }).map((s) => ({ stripSuffix: s })),
  fc.string({ minLength: 1, maxLength: 5 }).map((s) => ({ stripPrefix: s })),
  fc.constant({ pattern: '(\\d+)' }),
  fc.constant({ booleans: { true: ['X'], false: ['-'] } }),
  fc.constantFrom('YYYY-MM-DD', 'D.M.YYYY HH:mm', 'YYYY/MM/DD hh:mm A').map((f) => ({ dateFormat: f })),
);
const entries = [...catalog].flatMap(([ep, levels]) => [...levels].flatMap(([level, fields]) => [...fields].map((field) => ({ ep, level, field }))));
const validFile = fc
  .uniqueArray(fc.constantFrom(...entries), { minLength: 1, maxLength: 6, selector: (e) => `${e.ep}|${e.level}|${e.field}` })
  .chain((picked) =>
    fc.tuple(fc.constant(picked), fc.array(fc.tuple(fc.boolean(), fc.array(coercion, { minLength: 1, maxLength: 3 })), { minLength: picked.length, maxLength: picked.length })),
  )
  .map(([picked, how]) => {
    const endpoints: Record<string, Record<string, Record<string, unknown>>> = {};
    picked.forEach((e, i) => {
      const [alias, coerce] = how[i]!;
      ((endpoints[e.ep] ??= {})[e.level] ??= {})[e.field] = alias ? { aliases: [`${e.field}_${i}_new`] } : { coerce };
    });
    return { version: 1, endpoints };
  });

/** A valid file spoiled at one random place: a value replaced with any JSON, or a key added. */
const spoiled = fc.tuple(validFile, fc.jsonValue(), fc.nat(), fc.string()).map(([file, junk, pick, key]) => {
  const spots: Array<{ obj: Record<string, unknown>; key: string }> = [];
  const visit = (v: unknown) => {
    if (v === null || typeof v !== 'object') return;
    for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
      spots.push({ obj: v as Record<string, unknown>, key: k });
      visit(child);
    }
  };
  visit(file);
  const spot = spots[pick % spots.length]!;
  if (pick % 3 === 0) spot.obj[`${key}~`] = junk;
  else spot.obj[spot.key] = junk;
  return file;
});

/** Any JSON text at all either loads or is refused with one line; nothing else ever comes out. */
function loadsOrRefusesInOneLine(text: string): void {
  try {
    parseShapesFile(text, catalog);
  } catch (err) {
    expect(err).toBeInstanceOf(ShapesFileError);
    expect((err as Error).message).not.toMatch(/[\r\n]/);
    expect((err as Error).message.length).toBeGreaterThan(0);
    expect((err as Error).message.length).toBeLessThan(1000);
  }
}

describe('a PITWALL_SHAPES file', () => {
  it('built from the declarations loads', () => {
    fc.assert(fc.property(validFile, (file) => void parseShapesFile(JSON.stringify(file), catalog)), { numRuns: 300 });
  });

  it('of any JSON value either loads or is refused with one line, never another error', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => loadsOrRefusesInOneLine(JSON.stringify(v))), { numRuns: 500 });
  });

  it('spoiled at any one place is refused with one line naming the place, or still loads', () => {
    fc.assert(fc.property(spoiled, (file) => loadsOrRefusesInOneLine(JSON.stringify(file))), { numRuns: 500 });
  });

  it('of any text, JSON or not, deep or huge, is refused with one line', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const huge = JSON.stringify({ version: 1, endpoints: { results: { 'Classes[]': { ClassName: { aliases: ['x'.repeat(100_000)] } } } } });
    for (const text of ['', '{', 'null', '[]', '{"version":2,"endpoints":{}}', deep, huge, '{"__proto__":{"version":1}}']) loadsOrRefusesInOneLine(text);
    fc.assert(fc.property(fc.string(), (s) => loadsOrRefusesInOneLine(s)), { numRuns: 300 });
  });
});
