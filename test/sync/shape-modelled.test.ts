import { describe, expect, it } from 'vitest';
import { ZodArray, ZodOptional, ZodUnknown, z } from 'zod';

import { ENDPOINTS, endpoint } from '../../src/sync/endpoints.js';
import { isUnmodelledField, modelledPaths } from '../../src/sync/shape/modelled.js';
import { modelledOf } from '../../src/sync/shape/tracker.js';
import { newNode, observe, parentPath, paths } from '../../src/sync/shape/tree.js';

/** The fields of a level schema that hold a list parsed by a schema of its own. */
function nestedLists(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, f]) => {
      const inner = f instanceof ZodOptional ? f.unwrap() : f;
      return inner instanceof ZodArray && inner.element instanceof ZodUnknown;
    })
    .map(([k]) => k);
}

describe("the endpoints' shape levels", () => {
  it.each(ENDPOINTS.map((e) => [e.name, e] as const))('%s declares its list and every nested list its schemas leave unparsed', (_name, ep) => {
    const levels = ep.levels.map((l) => l.path).filter((p) => p !== '');
    expect(levels).toContain(`${ep.arrayKey}[]`);
    for (const { path, schema } of ep.levels) {
      for (const key of nestedLists(schema)) expect(levels, `${path} ${key}`).toContain(`${path === '' ? '' : `${path}.`}${key}[]`);
    }
  });

  it('model the fields of the results rows and their drivers, and the envelope of every endpoint', () => {
    const results = modelledOf(endpoint('results'));
    for (const p of [
      'RequestValid',
      'Classes',
      'Classes[]',
      'Classes[].ClassId',
      'Classes[].Races[].RaceLaps',
      'Classes[].Races[].Results[].ResultStart',
      'Classes[].Races[].Results[].Driver',
      'Classes[].Races[].Results[].Driver[]',
      'Classes[].Races[].Results[].Driver[].DriverFName',
    ]) {
      expect(results.has(p), p).toBe(true);
    }
    expect(results.has('Classes[].Races[].Results[].ResultStartPos')).toBe(false);
    expect(modelledOf(endpoint('point_standings')).has('PointsAsOf')).toBe(true);
    expect(modelledOf(endpoint('results')).has('PointsAsOf')).toBe(false);
  });
});

describe('modelled paths', () => {
  it('follow optional arrays and nested objects, and count only the top of an unmodelled subtree as a field', () => {
    const row = z.looseObject({ A: z.string().optional(), L: z.array(z.object({ B: z.number(), O: z.object({ C: z.null() }) })).optional() });
    const modelled = modelledPaths([{ path: 'Items[]', schema: row }]);
    for (const p of ['Items', 'Items[]', 'Items[].A', 'Items[].L', 'Items[].L[]', 'Items[].L[].B', 'Items[].L[].O', 'Items[].L[].O.C']) {
      expect(modelled.has(p), p).toBe(true);
    }
    expect(isUnmodelledField('Items[].New', modelled)).toBe(true);
    expect(isUnmodelledField('Items[].New.Inner', modelled)).toBe(false);
    expect(isUnmodelledField('Items[].A', modelled)).toBe(false);
  });
});

describe('the shape tree', () => {
  it('counts every path with its types, items per level and a truncated first example', () => {
    const tree = newNode();
    observe(tree, { L: [{ a: 1, d: [{ n: 'x'.repeat(200) }] }, { a: '2', b: null }], v: true });
    observe(tree, { L: [], v: false });
    const byPath = Object.fromEntries(paths(tree).map((p) => [p.path, p]));
    expect(byPath.$).toMatchObject({ seen: 2, types: ['object'] });
    expect(byPath.L).toMatchObject({ seen: 2, types: ['array'] });
    expect(byPath['L[]']).toMatchObject({ seen: 2, types: ['object'] });
    expect(byPath['L[].a']).toMatchObject({ seen: 2, types: ['string', 'number'], example: '1' });
    expect(byPath['L[].b']).toMatchObject({ seen: 1, types: ['null'], example: 'null' });
    expect(byPath['L[].d[].n']!.example).toBe(`"${'x'.repeat(79)}…`);
    expect(byPath.v).toMatchObject({ seen: 2, types: ['boolean'], example: 'true' });
    expect(parentPath('L[].d[].n')).toBe('L[].d[]');
    expect(parentPath('L[]')).toBe('L');
    expect(parentPath('L')).toBe('$');
  });
});
