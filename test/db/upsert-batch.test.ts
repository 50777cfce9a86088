import { describe, expect, it } from 'vitest';

import { markScopeDeleted } from '../../src/db/load/mark-deleted.js';
import { upsertRows } from '../../src/db/load/upsert.js';
import { drivers } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const driver = (driver_id: number, city: string) => ({ driver_id, first_name: 'Kyle', last_name: 'Larson', city, raw: { city } });

describe('upsertRows batches', () => {
  const db = useDatabase();
  const client = usePoolClient(db);

  it('loads a batch that repeats a key, keeping the last occurrence', async () => {
    const batch = [driver(1, 'Elk Grove'), driver(2, 'Concord'), driver(1, 'Hendersonville'), driver(1, 'Mooresville')];
    expect(await upsertRows(client, drivers, batch, { runId: 1 })).toEqual({ inserted: 2, updated: 0, unchanged: 0, seenAgain: 0 });
    const { rows } = await client.query('SELECT driver_id, city, raw FROM mrp.drivers ORDER BY driver_id');
    expect(rows).toEqual([
      { driver_id: 1, city: 'Mooresville', raw: { city: 'Mooresville' } },
      { driver_id: 2, city: 'Concord', raw: { city: 'Concord' } },
    ]);
  });

  it('revives a deleted row that comes back unchanged, clearing _deleted_at', async () => {
    await upsertRows(client, drivers, [driver(3, 'Tulsa')], { runId: 1 });
    expect(await markScopeDeleted(client, drivers, { driver_id: [3] }, { runId: 2 })).toBe(1);
    expect(await upsertRows(client, drivers, [driver(3, 'Tulsa')], { runId: 3 })).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
    const { rows } = await client.query('SELECT _deleted_at, _run_id FROM mrp.drivers WHERE driver_id = 3');
    expect(rows).toEqual([{ _deleted_at: null, _run_id: '3' }]);
  });

  it('refuses a row without its key before sending anything', async () => {
    const keyless = { first_name: 'No', raw: {} };
    await expect(upsertRows(client, drivers, [keyless], { runId: 1 })).rejects.toMatchObject({ name: 'DatabaseError', sqlstate: '23502' });
  });
});
