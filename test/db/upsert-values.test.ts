import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { upsertRows } from '../../src/db/load/upsert.js';
import { driverStats, drivers, pointClasses, results } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

describe('values round-trip through upsertRows', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const client = usePoolClient(db);

  it('keeps car numbers "00", "0" and "" distinct', async () => {
    const row = (row_index: number, car_number: string) => ({ event_id: 1, class_id: 1, race_number: 1, row_index, car_number, raw: { car_number } });
    await upsertRows(client, results, [row(1, '00'), row(2, '0'), row(3, ''), row(4, '007')], { runId: 1 });
    const { rows } = await client.query('SELECT car_number FROM mrp.results ORDER BY row_index');
    expect(rows.map((r) => r.car_number)).toEqual(['00', '0', '', '007']);
  });

  it('stores any string, in text columns and inside raw, exactly as given', async () => {
    const tricky = fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom("O'Reilly", 'back\\slash', '"quoted"', '{a,b}', 'NULL', ' padded ', 'é🏁中', 'tab\tnew\nline\u0001'));
    await fc.assert(
      fc.asyncProperty(fc.array(tricky, { minLength: 1, maxLength: 30 }), async (names) => {
        const batch = names.map((name, i) => ({ driver_id: i + 1, first_name: name, raw: { name, [name]: i } }));
        await upsertRows(client, drivers, batch, { runId: 1 });
        const { rows } = await client.query('SELECT first_name, raw FROM mrp.drivers WHERE driver_id <= $1 ORDER BY driver_id', [names.length]);
        expect(rows).toEqual(batch.map((b) => ({ first_name: b.first_name, raw: b.raw })));
      }),
      { numRuns: 40 },
    );
  });

  it('stores a multi-megabyte string whole', async () => {
    const huge = 'ä'.repeat(3_000_000) + "'end";
    await upsertRows(client, drivers, [{ driver_id: 9999, city: huge, raw: { huge } }], { runId: 1 });
    const { rows } = await client.query('SELECT city = $1 AS same, raw->>\'huge\' = $1 AS same_raw FROM mrp.drivers WHERE driver_id = 9999', [huge]);
    expect(rows).toEqual([{ same: true, same_raw: true }]);
  });

  it('keeps numeric strings and timestamps exactly as stated', async () => {
    await upsertRows(client, driverStats, [{ driver_id: 1, class_id: 1, year: 2024, avg_start: '12.50', avg_finish: '0.333333333333333333333', raw: {} }], { runId: 1 });
    await upsertRows(client, pointClasses, [{ schedule_id: 1, class_id: 1, points_as_of: '2024-07-04 19:30:00', raw: {} }], { runId: 1 });
    const stats = await client.query('SELECT avg_start::text, avg_finish::text FROM mrp.driver_stats');
    expect(stats.rows).toEqual([{ avg_start: '12.50', avg_finish: '0.333333333333333333333' }]);
    const points = await client.query("SELECT to_char(points_as_of, 'YYYY-MM-DD HH24:MI:SS') AS at FROM mrp.point_classes");
    expect(points.rows).toEqual([{ at: '2024-07-04 19:30:00' }]);
  });

  it('refuses an integer that does not fit the column, as Postgres would', async () => {
    const load = upsertRows(client, drivers, [{ driver_id: 2 ** 31, raw: {} }], { runId: 1 });
    await expect(load).rejects.toMatchObject({ name: 'DatabaseError', sqlstate: '22003', retryable: false });
  });

  it('refuses a value of the wrong JS type instead of loading its String() form', async () => {
    const cases = [
      { driver_id: 1, first_name: 7, raw: {} },
      { driver_id: '1', raw: {} },
      { driver_id: 1.5, raw: {} },
      { driver_id: 1, raw: undefined },
    ];
    for (const row of cases) {
      await expect(upsertRows(client, drivers, [row], { runId: 1 })).rejects.toMatchObject({ name: 'DatabaseError', retryable: false });
    }
    const date = { schedule_id: 2, class_id: 1, points_as_of: new Date(), raw: {} };
    await expect(upsertRows(client, pointClasses, [date], { runId: 1 })).rejects.toThrow(/expected a string or finite number, got a Date/);
  });
});
