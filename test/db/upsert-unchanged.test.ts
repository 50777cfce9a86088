import type pg from 'pg';
import { describe, expect, it } from 'vitest';

import { upsertRows } from '../../src/db/load/upsert.js';
import { results } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const rows = Array.from({ length: 12_000 }, (_, i) => ({
  event_id: 1 + Math.floor(i / 100), class_id: 1, race_number: 1, row_index: (i % 100) + 1,
  driver_id: i, driver_name: `Driver ${i}`, finish: (i % 100) + 1, start: null, car_number: '0', dnf: null, dns: null, dq: null,
  raw: { n: i, nested: { list: [1, 2, 3], text: 'x' } },
}));

const snapshot = (client: pg.ClientBase) =>
  client.query<{ n: number; xmins: string; synced: string; locked: number }>(
    `SELECT count(*)::int AS n, string_agg(xmin::text, ',' ORDER BY event_id, row_index) AS xmins,
            max(_synced_at)::text AS synced, count(*) FILTER (WHERE xmax <> 0)::int AS locked
       FROM mrp.results`,
  );

describe('a second identical load', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const client = usePoolClient(db);

  it('writes nothing: no new row versions, no row locks, _synced_at unmoved', async () => {
    // More rows than one chunk, so every chunk's comparison is exercised.
    await upsertRows(client, results, rows, { runId: 1 });
    const before = (await snapshot(client)).rows[0];
    // Key order of raw's object must not matter: jsonb compares values, not text.
    const reordered = rows.map((r) => ({ ...r, raw: { nested: { text: 'x', list: [1, 2, 3] }, n: r.raw.n } }));
    expect(await upsertRows(client, results, reordered.reverse(), { runId: 2 })).toEqual({ inserted: 0, updated: 0, unchanged: rows.length, seenAgain: 0 });
    const after = (await snapshot(client)).rows[0];
    expect(after).toEqual(before);
    expect(after?.locked).toBe(0);
  });

  it('keeps _first_seen_at when a row changes, and moves _synced_at', async () => {
    const row = { ...rows[0]!, event_id: 999 };
    await upsertRows(client, results, [row], { runId: 3 });
    const read = () => client.query('SELECT _first_seen_at, _synced_at, _run_id FROM mrp.results WHERE event_id = 999');
    const first = (await read()).rows[0];
    await upsertRows(client, results, [{ ...row, finish: 42 }], { runId: 4 });
    const second = (await read()).rows[0];
    expect(second._first_seen_at).toEqual(first._first_seen_at);
    expect(second._synced_at.getTime()).toBeGreaterThan(first._synced_at.getTime());
    expect(second._run_id).toBe('4');
  });

  it('gives the same outcome for a batch of a first load (no probe for identical rows), writing no new row version', async () => {
    // `firstLoad` is for a scope never loaded; were rows there after all, ON CONFLICT still judges them.
    const batch = rows.slice(0, 300).map((r) => ({ ...r, event_id: r.event_id + 5000 }));
    expect(await upsertRows(client, results, batch, { runId: 5, firstLoad: true })).toEqual({ inserted: 300, updated: 0, unchanged: 0, seenAgain: 0 });
    const xmins = () => client.query<{ x: string }>('SELECT string_agg(xmin::text, \',\' ORDER BY event_id, row_index) AS x FROM mrp.results WHERE event_id > 5000');
    const before = (await xmins()).rows[0]?.x;
    const changed = batch.map((r, i) => (i === 7 ? { ...r, finish: 77 } : r));
    expect(await upsertRows(client, results, changed, { runId: 6, firstLoad: true })).toEqual({ inserted: 0, updated: 1, unchanged: 299, seenAgain: 0 });
    const after = (await xmins()).rows[0]?.x?.split(',');
    const old = before?.split(',');
    expect(after?.filter((x, i) => x !== old?.[i])).toHaveLength(1);
  });
});
