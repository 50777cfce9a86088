import { describe, expect, it } from 'vitest';

import { DimensionCache } from '../../src/sync/dimension-cache.js';

const driver = (id: number, last: string, raw: unknown = { DriverId: id }) => ({
  driver_id: id,
  first_name: 'Kyle',
  last_name: last,
  suffix: null,
  city: 'Knoxville',
  state: 'IA',
  country: 'USA',
  raw,
});

describe('the dimension cache', () => {
  it('keeps every row of a table it has not been told of', () => {
    const cache = new DimensionCache();
    const rows = [driver(1, 'Larson'), driver(2, 'Bell')];
    expect(cache.fresh('drivers', rows)).toEqual({ rows, known: 0 });
  });

  it('leaves out rows identical to remembered ones by their typed columns, raw aside', () => {
    const cache = new DimensionCache();
    cache.remember('drivers', [driver(1, 'Larson'), driver(2, 'Bell')]);
    const again = [driver(1, 'Larson', { DriverId: '1', Extra: true }), driver(2, 'Bell-Smith'), driver(3, 'Dover')];
    // Driver 1 differs only in raw; 2 was renamed; 3 was never committed.
    expect(cache.fresh('drivers', again)).toEqual({ rows: [again[1], again[2]], known: 1 });
  });

  it('remembers the latest content of a key', () => {
    const cache = new DimensionCache();
    cache.remember('drivers', [driver(2, 'Bell')]);
    cache.remember('drivers', [driver(2, 'Bell-Smith')]);
    expect(cache.fresh('drivers', [driver(2, 'Bell')]).known).toBe(0);
    expect(cache.fresh('drivers', [driver(2, 'Bell-Smith')]).known).toBe(1);
  });

  it('keys composite-key tables by every key column', () => {
    const cache = new DimensionCache();
    const row = (eventId: number, classId: number, name: string) => ({ event_id: eventId, class_id: classId, class_name: name, raw: {} });
    cache.remember('event_classes', [row(10, 1, 'Late Model')]);
    const fresh = cache.fresh('event_classes', [row(10, 1, 'Late Model'), row(10, 2, 'Late Model'), row(11, 1, 'Late Model')]);
    expect(fresh.known).toBe(1);
    expect(fresh.rows.map((r) => [r.event_id, r.class_id])).toEqual([
      [10, 2],
      [11, 1],
    ]);
  });
});
