import { describe, expect, it } from 'vitest';

import { upsertRows } from '../../src/db/load/upsert.js';
import { drivers, eventClasses, results } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const result = (row_index: number, finish: number) => ({
  event_id: 1, class_id: 2, race_number: 1, row_index, driver_id: 100 + row_index, driver_name: `Driver ${row_index}`,
  finish, start: row_index, car_number: String(row_index), dnf: false, dns: false, dq: null,
  raw: { Finish: finish, DriverID: 100 + row_index },
});

describe('upsertRows counts', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const client = usePoolClient(db);

  it('counts inserted, updated and unchanged rows of a four-column-key table', async () => {
    const first = await upsertRows(client, results, [result(1, 1), result(2, 2), result(3, 3)], { runId: 1 });
    expect(first).toEqual({ inserted: 3, updated: 0, unchanged: 0, seenAgain: 0 });
    const second = await upsertRows(client, results, [result(1, 1), result(2, 3), result(3, 2), result(4, 4)], { runId: 2 });
    expect(second).toEqual({ inserted: 1, updated: 2, unchanged: 1, seenAgain: 0 });
    const { rows } = await db.pool.query('SELECT row_index, finish, _run_id FROM mrp.results ORDER BY row_index');
    expect(rows).toEqual([
      { row_index: 1, finish: 1, _run_id: '1' },
      { row_index: 2, finish: 3, _run_id: '2' },
      { row_index: 3, finish: 2, _run_id: '2' },
      { row_index: 4, finish: 4, _run_id: '2' },
    ]);
  });

  it('with sameRun, counts a row this run already stored as seen again, one stored before the run as unchanged', async () => {
    const rows = [result(11, 1), result(12, 2)];
    await upsertRows(client, results, rows, { runId: 7 });
    // Run 8 meets row 11 as stored by run 7, then writes row 12 anew and meets it again.
    expect(await upsertRows(client, results, [result(11, 1)], { runId: 8, sameRun: () => true })).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 0 });
    expect(await upsertRows(client, results, [result(12, 5)], { runId: 8, sameRun: () => true })).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
    expect(await upsertRows(client, results, [result(11, 1), result(12, 5)], { runId: 8, sameRun: () => true })).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 1 });
    // Asked only when a chunk found identical rows; without it, every identical row is unchanged.
    let asked = 0;
    await upsertRows(client, results, [result(13, 1)], { runId: 8, sameRun: () => ++asked > 0 });
    expect(asked).toBe(0);
    expect(await upsertRows(client, results, [result(12, 5)], { runId: 8 })).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 0 });
  });

  it('counts a change in raw alone as an update on a single-key table', async () => {
    const driver = { driver_id: 7, first_name: 'Ann', last_name: "O'Neil", raw: { DriverID: 7, Hometown: 'Ames' } };
    expect(await upsertRows(client, drivers, [driver], { runId: 1 })).toEqual({ inserted: 1, updated: 0, unchanged: 0, seenAgain: 0 });
    expect(await upsertRows(client, drivers, [driver], { runId: 2 })).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 0 });
    const moved = { ...driver, raw: { DriverID: 7, Hometown: 'Boone' } };
    expect(await upsertRows(client, drivers, [moved], { runId: 3 })).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
  });

  it('treats a missing content column as NULL on a two-column-key table', async () => {
    const named = { event_id: 5, class_id: 6, class_name: 'Late Model', class_name_override: 'LM', raw: {} };
    await upsertRows(client, eventClasses, [named], { runId: 1 });
    const { class_name_override: _dropped, ...unnamed } = named;
    expect(await upsertRows(client, eventClasses, [unnamed], { runId: 2 })).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
    const { rows } = await db.pool.query('SELECT class_name, class_name_override FROM mrp.event_classes');
    expect(rows).toEqual([{ class_name: 'Late Model', class_name_override: null }]);
  });

  it('tells an update from an insert even for a row inserted earlier in the same transaction', async () => {
    await client.query('BEGIN');
    try {
      expect(await upsertRows(client, drivers, [{ driver_id: 50, city: 'a', raw: {} }], { runId: 1 })).toMatchObject({ inserted: 1 });
      expect(await upsertRows(client, drivers, [{ driver_id: 50, city: 'b', raw: {} }], { runId: 1 })).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
      expect(await upsertRows(client, drivers, [{ driver_id: 50, city: 'b', raw: {} }], { runId: 1 })).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 0 });
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('sends no query for an empty batch', async () => {
    const client = { query: () => Promise.reject(new Error('must not be called')) } as never;
    expect(await upsertRows(client, results, [], { runId: 1 })).toEqual({ inserted: 0, updated: 0, unchanged: 0, seenAgain: 0 });
  });
});
