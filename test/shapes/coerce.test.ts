import { describe, expect, it } from 'vitest';

import { flag, optDecimal, optInt, optUsDateTime } from '../../src/api/schemas/primitives.js';
import { ENDPOINTS } from '../../src/endpoints/registry.js';
import { shapeCatalog } from '../../src/shapes/catalog.js';
import { coercionSchema, compileCoercions, type Coercion } from '../../src/shapes/coerce.js';
import { parseShapesFile } from '../../src/shapes/file.js';

const run = (c: Coercion[], v: unknown) => compileCoercions(c)(v);

describe('each coercion of the set', () => {
  it('strips a prefix or a suffix, and leaves a value without it as it came', () => {
    expect(run([{ stripSuffix: ' avg' }], '9.68 avg')).toBe('9.68');
    expect(run([{ stripSuffix: ' avg' }], '9.68')).toBe('9.68');
    expect(run([{ stripPrefix: '$' }], '$12.50')).toBe('12.50');
    expect(run([{ stripPrefix: '$' }], 12.5)).toBe(12.5);
    expect(optDecimal.parse(run([{ stripSuffix: ' avg' }], '9.68 avg'))).toBe('9.68');
  });

  it('takes the number a pattern captures, and nothing that is not a number', () => {
    expect(run([{ pattern: 'P(\\d+)' }], 'P7')).toBe('7');
    expect(run([{ pattern: '(\\w+)' }], 'abc')).toBe('abc');
    expect(optInt.parse(run([{ pattern: 'P(\\d+)' }], 'P7'))).toBe(7);
  });

  it('maps listed strings to booleans, in any case, and leaves others for the type to refuse', () => {
    const c: Coercion[] = [{ booleans: { true: ['X'], false: ['-'] } }];
    expect(run(c, ' x ')).toBe(true);
    expect(run(c, '-')).toBe(false);
    expect(run(c, '?')).toBe('?');
    expect(flag.safeParse(run(c, '?')).success).toBe(false);
  });

  it('reads a date format into the form the declared date type takes, and leaves an impossible date as it came', () => {
    expect(optUsDateTime.parse(run([{ dateFormat: 'YYYY-MM-DDTHH:mm:ss' }], '2015-05-11T19:30:00'))).toBe('2015-05-11 19:30:00');
    expect(optUsDateTime.parse(run([{ dateFormat: 'D.M.YYYY h:mm A' }], '11.5.2015 7:30 PM'))).toBe('2015-05-11 19:30:00');
    expect(run([{ dateFormat: 'YYYY-MM-DD' }], '2015-02-30')).toBe('2015-02-30');
    expect(run([{ dateFormat: 'YYYY-MM-DD' }], 'soon')).toBe('soon');
  });

  it('applies a list in order', () => {
    expect(run([{ stripPrefix: '(' }, { stripSuffix: ')' }], '(5)')).toBe('5');
  });

  it('refuses what cannot work: a pattern without a capture group or that is no regular expression, a date format without a day, a string both true and false', () => {
    expect(coercionSchema.safeParse({ pattern: '\\d+' }).success).toBe(false);
    expect(coercionSchema.safeParse({ pattern: '(' }).success).toBe(false);
    expect(coercionSchema.safeParse({ pattern: `(${'a'.repeat(300)})` }).success).toBe(false);
    expect(coercionSchema.safeParse({ dateFormat: 'YYYY-MM' }).success).toBe(false);
    expect(coercionSchema.safeParse({ dateFormat: 'YYYY-MM-DD hh:mm' }).success).toBe(false);
    expect(coercionSchema.safeParse({ booleans: { true: ['Y'], false: [' y'] } }).success).toBe(false);
    expect(coercionSchema.safeParse({ stripSuffix: 'x', stripPrefix: 'y' }).success).toBe(false);
  });
});

describe('a shapes file checked against the declarations', () => {
  const catalog = shapeCatalog(ENDPOINTS);
  const refusal = (file: unknown) => {
    try {
      parseShapesFile(JSON.stringify(file), catalog);
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };
  const at = (ep: string, level: string, fields: unknown) => ({ version: 1, endpoints: { [ep]: { [level]: fields } } });

  it('names the entry that is wrong, and what would be right', () => {
    expect(refusal(at('result', 'Classes[]', {}))).toMatch(/^endpoints\.result: no such endpoint; one of "schedule_years"/);
    expect(refusal(at('results', 'Classes[].Results[]', {}))).toMatch(/^endpoints\.results\["Classes\[\]\.Results\[\]"\]: no such level of results; one of ""?Classes\[\]"/);
    expect(refusal(at('results', 'Classes[]', { Foo: { aliases: ['x'] } }))).toMatch(/^endpoints\.results\["Classes\[\]"\]\.Foo: not a declared field of that level; one of "ClassId", "ClassName"$/);
    expect(refusal(at('results', 'Classes[]', { ClassName: { aliases: ['ClassId'] } }))).toMatch(/aliases: "ClassId" is a declared field of that level itself$/);
    expect(refusal(at('results', 'Classes[]', { ClassName: { aliases: ['N'] }, ClassId: { aliases: ['N'] } }))).toMatch(/\.ClassId\.aliases: "N" is already an alias of ClassName$/);
    expect(refusal(at('results', 'Classes[]', { ClassName: {} }))).toMatch(/ClassName: names neither aliases nor coerce$/);
    expect(refusal({ version: 1, endpoints: {}, extra: 1 })).toMatch(/^\(file\): .*\("extra"\)$/);
    expect(refusal(at('results', 'Classes[].Races[].Results[].Driver[]', { DriverFName: { aliases: ['FirstName'] } }))).toBeNull();
    expect(refusal(at('point_standings', '', { PointsAsOf: { coerce: [{ dateFormat: 'YYYY-MM-DD' }] } }))).toBeNull();
  });
});
