import { describe, expect, it } from 'vitest';

import { prepareItem, type EndpointOverrides, type FieldOverride } from '../../src/shapes/overrides.js';
import { createWorld } from '../../src/simulator/world/index.js';
import { NO_QUIRKS } from '../../src/simulator/world/types.js';
import { endpoint } from '../../src/sync/endpoints.js';
import { saltedHash } from '../../src/sync/hash.js';
import { modelledOf } from '../../src/sync/shape/tracker.js';

const results = endpoint('results');

const ROW = 'Classes[].Races[].Results[]';
const alias = (...aliases: string[]): FieldOverride => ({ aliases, coerce: null });
const overridesOf = (levels: Record<string, Record<string, FieldOverride>>): EndpointOverrides => ({
  levels: new Map(Object.entries(levels).map(([path, fields]) => [path, new Map(Object.entries(fields))])),
  digest: 'test',
});

describe('an item adjusted by overrides before it is parsed', () => {
  it('fills a missing declared field from its first alias present, and leaves the item itself as received', () => {
    const item = { StartPos: 4, Other: 1 };
    const own = new Map([['ResultStart', alias('Start', 'StartPos')]]);
    expect(prepareItem(item, own, undefined)).toEqual({ StartPos: 4, Other: 1, ResultStart: 4 });
    expect(item).toEqual({ StartPos: 4, Other: 1 });
  });

  it("keeps the declared name's value where the item carries both", () => {
    const own = new Map([['ResultStart', alias('StartPos')]]);
    expect(prepareItem({ ResultStart: 2, StartPos: 9 }, own, undefined)).toEqual({ ResultStart: 2, StartPos: 9 });
  });

  it('coerces the declared field, from the alias too, and each driver of the item by the driver overrides', () => {
    const strip = (v: unknown) => (typeof v === 'string' && v.endsWith(' avg') ? v.slice(0, -4) : v);
    const own = new Map([['AvgStart', { aliases: ['Avg'], coerce: strip }]]);
    const drivers = new Map([['DriverFName', alias('FirstName')]]);
    const item = { Avg: '9.5 avg', Driver: [{ DriverId: 3, FirstName: 'Ann' }, 'junk'] };
    expect(prepareItem(item, own, drivers)).toEqual({ Avg: '9.5 avg', AvgStart: '9.5', Driver: [{ DriverId: 3, FirstName: 'Ann', DriverFName: 'Ann' }, 'junk'] });
    expect(item.Driver[0]).toEqual({ DriverId: 3, FirstName: 'Ann' });
  });

  it('keeps a field named __proto__ a field, and passes non-objects through', () => {
    const item = JSON.parse('{"__proto__": {"x": 1}, "StartPos": 1}') as Record<string, unknown>;
    const out = prepareItem(item, new Map([['ResultStart', alias('StartPos')]]), undefined) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'StartPos', 'ResultStart']);
    expect(prepareItem(null, new Map(), undefined)).toBeNull();
    expect(prepareItem([1], new Map(), undefined)).toEqual([1]);
  });
});

describe('an endpoint extracted with overrides', () => {
  const world = createWorld({ seed: 5, scale: 'tiny' });
  const feed = world.render('/v2/schedules/results/feed/', new URLSearchParams(), NO_QUIRKS);
  const eventId = feed.kind === 'ok' ? String((feed.items[0] as { EventId: number }).EventId) : '0';
  const outcome = world.render('/v2/schedules/results/', new URLSearchParams({ EventId: eventId }), NO_QUIRKS);
  const items = outcome.kind === 'ok' ? (outcome.items as unknown[]) : [];
  const renamed = JSON.parse(JSON.stringify(items).replaceAll('"ResultStart":', '"StartPos":')) as unknown[];

  it('reads a renamed field through its alias, rows and raw as the upstream sent them', () => {
    const params = { EventId: eventId };
    const before = results.extract(items, params, {});
    const after = results.extract(renamed, params, {}, overridesOf({ [ROW]: { ResultStart: alias('StartPos') } }));
    const rows = (x: typeof before) => (x.rows.results ?? []) as Array<Record<string, unknown>>;
    expect(rows(before).length).toBeGreaterThan(0);
    expect(rows(after).map((r) => r.start)).toEqual(rows(before).map((r) => r.start));
    for (const r of rows(after)) expect(Object.keys(r.raw as object)).not.toContain('ResultStart');
    expect(after.fieldErrors).toEqual([]);
  });

  it('counts the alias as modelled, so the report no longer calls it new', () => {
    const o = overridesOf({ [ROW]: { ResultStart: alias('StartPos') } });
    expect(modelledOf(results).has(`${ROW}.StartPos`)).toBe(false);
    expect(modelledOf(results, o).has(`${ROW}.StartPos`)).toBe(true);
    expect(modelledOf(results, o).has(`${ROW}.ResultStart`)).toBe(true);
  });
});

describe('the hash a scope records under overrides', () => {
  it('is the body hash itself without them, and another one, stable, with them', () => {
    expect(saltedHash('t:abc', undefined)).toBe('t:abc');
    expect(saltedHash('t:abc', 'x')).toMatch(/^s:/);
    expect(saltedHash('t:abc', 'x')).toBe(saltedHash('t:abc', 'x'));
    expect(saltedHash('t:abc', 'y')).not.toBe(saltedHash('t:abc', 'x'));
  });
});
