import { describe, expect, it } from 'vitest';

import { DEFAULT_QUIRKS, type Quirks } from '../../../src/simulator/world/types.js';

import { ITEM_SCHEMAS, sharedWorld, walk } from './helpers.js';

const ALL_QUIRKS: Quirks = { ...DEFAULT_QUIRKS, idsAsStrings: 1, flagsAsInts: 1, decimalPoints: 1 };

describe('every endpoint renders items its wire schema accepts', () => {
  for (const [name, quirks] of [['default quirks', DEFAULT_QUIRKS], ['every quirk always', ALL_QUIRKS]] as const) {
    it(`with ${name}, at tiny scale, over the whole ingest walk`, () => {
      // walk() parses every item with ITEM_SCHEMAS and the /v2/points/ header with pointsHeader; a bad item throws.
      const requests = walk(sharedWorld('tiny'), quirks);
      const seen = new Map<string, number>();
      for (const r of requests) seen.set(r.path, (seen.get(r.path) ?? 0) + r.items.length);
      for (const path of Object.keys(ITEM_SCHEMAS)) expect(seen.get(path), path).toBeGreaterThan(0);
    });
  }

  it('renders the loose forms the quirks ask for, and only then', () => {
    const world = sharedWorld('tiny');
    const results = (quirks: Quirks) =>
      JSON.stringify(world.render('/v2/schedules/results/', new URLSearchParams({ EventId: '400001' }), quirks));
    const loose = results(ALL_QUIRKS);
    expect(loose).toMatch(/"ResultPlace":"1"/);
    expect(loose).toMatch(/"ResultDNF":0/);
    expect(loose).toMatch(/"DriverId":"\d+"/);
    const plain = results({ ...DEFAULT_QUIRKS, idsAsStrings: 0, flagsAsInts: 0 });
    expect(plain).not.toMatch(/"(ResultPlace|ResultStart|DriverId|ClassId)":"/);
    expect(plain).not.toMatch(/"Result(DNF|DNS|DQ)":[01]/);
  });

  it('always renders PointTotal as text, at two places under decimalPoints', () => {
    const world = sharedWorld('small');
    const query = new URLSearchParams({ ScheduleId: '5506', ClassId: '1000' });
    const totals = (quirks: Quirks) => {
      const outcome = world.render('/v2/points/', query, quirks);
      return outcome.kind === 'ok' ? outcome.items.map((i) => (i as { PointTotal: unknown }).PointTotal) : [];
    };
    const plain = totals({ ...DEFAULT_QUIRKS, decimalPoints: 0 });
    expect(plain.length).toBeGreaterThan(5);
    for (const t of plain) expect(t).toMatch(/^\d+(\.5)?$/);
    for (const t of totals({ ...DEFAULT_QUIRKS, decimalPoints: 1 })) expect(t).toMatch(/^\d+\.\d0$/);
  });
});
