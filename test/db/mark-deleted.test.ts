import { beforeEach, describe, expect, it } from 'vitest';

import { markMissingDeleted, markScopeDeleted } from '../../src/db/load/mark-deleted.js';
import { upsertRows } from '../../src/db/load/upsert.js';
import { pointStandings } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const standing = (schedule_id: number, class_id: number, driver_id: number) => ({ schedule_id, class_id, driver_id, position: driver_id, raw: {} });
// Two scopes of three drivers each: (schedule 7, class 3) and (schedule 7, class 4).
const all = [3, 4].flatMap((cls) => [1, 2, 3].map((d) => standing(7, cls, d)));

describe('markMissingDeleted', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const client = usePoolClient(db);
  const deletedKeys = async () =>
    (await client.query("SELECT class_id || '/' || driver_id AS k FROM mrp.point_standings WHERE _deleted_at IS NOT NULL ORDER BY 1")).rows.map((r) => r.k);
  beforeEach(async () => {
    await client.query('TRUNCATE mrp.point_standings');
    await upsertRows(client, pointStandings, all, { runId: 1 });
  });

  it('marks only the rows of the scope that the response no longer has', async () => {
    const present = [standing(7, 3, 1), standing(7, 3, 3)];
    expect(await markMissingDeleted(client, pointStandings, { schedule_id: [7], class_id: [3] }, present, { runId: 2 })).toBe(1);
    expect(await deletedKeys()).toEqual(['3/2']);
    const { rows } = await client.query('SELECT _run_id FROM mrp.point_standings WHERE _deleted_at IS NOT NULL');
    expect(rows).toEqual([{ _run_id: '2' }]);
  });

  it('is idempotent: a second pass marks nothing and keeps the first _deleted_at', async () => {
    const scope = { schedule_id: [7], class_id: [4] };
    expect(await markMissingDeleted(client, pointStandings, scope, [standing(7, 4, 1)], { runId: 2 })).toBe(2);
    const at = (await client.query('SELECT max(_deleted_at) AS at FROM mrp.point_standings')).rows[0].at;
    expect(await markMissingDeleted(client, pointStandings, scope, [standing(7, 4, 1)], { runId: 3 })).toBe(0);
    expect((await client.query('SELECT max(_deleted_at) AS at, max(_run_id) AS run FROM mrp.point_standings')).rows[0]).toEqual({ at, run: '2' });
  });

  it('marks a whole scope, and an empty value set marks nothing', async () => {
    expect(await markScopeDeleted(client, pointStandings, { class_id: [4] }, { runId: 2 })).toBe(3);
    expect(await markScopeDeleted(client, pointStandings, { class_id: [] }, { runId: 2 })).toBe(0);
    expect(await deletedKeys()).toEqual(['4/1', '4/2', '4/3']);
  });

  it('treats {} as the whole table for a response, but refuses it for a vanished parent', async () => {
    await expect(markScopeDeleted(client, pointStandings, {}, { runId: 2 })).rejects.toThrow(/at least one scope column/);
    await expect(markScopeDeleted(client, pointStandings, { nope: [1] }, { runId: 2 })).rejects.toThrow(/no column "nope"/);
    expect(await deletedKeys()).toEqual([]);
    expect(await markMissingDeleted(client, pointStandings, {}, all.slice(1), { runId: 2 })).toBe(1);
    expect(await deletedKeys()).toEqual(['3/1']);
  });
});
