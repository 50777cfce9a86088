import { describe, expect, it } from 'vitest';

import { endpoint } from '../../src/sync/endpoints.js';

const entryList = endpoint('entry_list');
const results = endpoint('results');

/** A result row as the upstream sends it; `start` may be anything, to make a field error. */
const row = (driver: number | null, car: string, place: number, start: unknown = place) => ({
  ResultPlace: place,
  ResultStart: start,
  ResultCarNum: car,
  ResultDNF: false,
  ResultDNS: false,
  ResultDQ: false,
  Driver: driver === null ? [] : [{ DriverId: driver, DriverFName: `F${driver}`, DriverLName: `L${driver}` }],
  DriverName: driver === null ? 'Unknown' : `F${driver} L${driver}`,
});
const body = (rows: unknown[]) => [{ ClassId: 7, ClassName: 'Late Model', Races: [{ RaceName: 'Feature', RaceLaps: 30, Results: rows }] }];
const extract = (rows: unknown[]) => results.extract(body(rows), { EventId: '41' }, {});
const numbered = (rows: unknown[] | undefined) => (rows ?? []).map((r) => r as { row_index: number; driver_id: number | null; finish: number | null });

describe('an item listed twice under one parent', () => {
  const once = [row(11, '5', 1), row(12, '7x', 2), row(13, '00', 3), row(14, '21A', 4)];

  it('loads the first copy, keeps the later one aside with its reason, and shifts no row after it', () => {
    // The second row sent again right after itself, the copy's ResultStart broken and its place changed.
    const twice = [once[0], once[1], row(12, '7x', 9, 'P2'), once[2], once[3]];
    const clean = extract(once);
    const x = extract(twice);
    expect(numbered(x.rows.results)).toEqual(numbered(clean.rows.results));
    expect(numbered(x.rows.results).map((r) => r.row_index)).toEqual(once.map((_, i) => i + 1));
    expect(x.duplicates).toEqual([
      {
        table: 'results',
        reason: 'duplicate of item 2 under results, event_id 41, class_id 7, race_number 1, Classes[].Races[].Results[]: item 3 has the same driver_id 12, car_number "7x"',
        payload: twice[2],
      },
    ]);
    // No row of the copy loads, so the value it failed on is no field error of the warehouse.
    expect(x.fieldErrors).toEqual(clean.fieldErrors);
    expect(x.rejects).toEqual([]);
  });

  it('tells rows without a driver apart by their whole content, and keyed items by their key', () => {
    const anonymous = [row(null, '5', 1), row(null, '5', 2), row(null, '5', 1)];
    const x = extract(anonymous);
    expect(numbered(x.rows.results).map((r) => [r.row_index, r.finish])).toEqual([[1, 1], [2, 2]]);
    expect(x.duplicates.map((d) => d.reason)).toEqual([expect.stringMatching(/^duplicate of item 1 under .*: item 3 has the same content$/)]);

    const entries = (ids: number[]) => [{ ClassId: 7, Entries: ids.map((id) => ({ CarNum: String(id), Driver: [{ DriverId: id }] })) }];
    const e = entryList.extract(entries([3, 4, 3]), { EventId: '41' }, {});
    expect(e.rows.entry_list?.map((r) => r.driver_id)).toEqual([3, 4]);
    expect(e.duplicates).toMatchObject([{ table: 'entry_list', reason: expect.stringMatching(/^duplicate of item 1 under entry_list, event_id 41, class_id 7, .*: item 3 has the same driver_id 3$/) }]);
  });
});
