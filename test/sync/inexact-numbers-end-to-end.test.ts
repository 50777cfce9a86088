import { describe, expect, it } from 'vitest';

import { canonicalQuery } from '../../src/api/query.js';
import { decompressBody } from '../../src/sync/kept-body.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';

type Item = Record<string, unknown>;

const BIG = '123456789012345678901234567890';
const REASON = (text: string) => `${text}: out of range for a whole number (up to 2147483647 either way)`;

describe('numbers past what JSON.parse carries, from the upstream to the warehouse', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 47 });
  let eventId: string | undefined;
  // One event's first two results get markers, which the text hook turns into bare numbers.
  const proxy = useResource(
    'number proxy',
    () =>
      startShapeProxy(
        sim.url,
        (path, body: Item, url) => {
          const rows = ((body.Classes as Item[] | undefined)?.[0]?.Races as Item[] | undefined)?.[0]?.Results as Item[] | undefined;
          if (path !== '/v2/schedules/results/' || (rows?.length ?? 0) < 2) return undefined;
          if ((eventId ??= url.searchParams.get('EventId') ?? undefined) !== url.searchParams.get('EventId')) return undefined;
          rows![0]!.ResultStart = '<start>';
          rows![1]!.ResultPlace = '<place>';
          return body;
        },
        (_path, json) => json.replace('"<start>"', '1e400').replace('"<place>"', BIG),
      ),
    (p) => p.close(),
  );

  it('loads the rows with NULL, records each number as sent, and keeps it as a number in raw and the kept body', async () => {
    const summary = await syncOnce(db, { ...sim, url: proxy.url } as typeof sim);
    expect(summary.status).toBe('succeeded');
    expect(eventId).toBeDefined();
    expect(summary.tables.results).toMatchObject({ rejected: 0, fieldErrors: 2 });
    const { rows } = await db.pool.query(
      `SELECT f.path, f.value, f.reason, r.start, r.finish, r.raw->>'ResultStart' AS raw_start, r.raw->>'ResultPlace' AS raw_place,
              jsonb_typeof(r.raw->'ResultStart') AS start_type, jsonb_typeof(r.raw->'ResultPlace') AS place_type
         FROM pitwall.field_errors f
         JOIN mrp.results r ON f.table_name = 'results' AND r._deleted_at IS NULL
          AND f.row_key = jsonb_build_object('event_id', r.event_id, 'class_id', r.class_id, 'race_number', r.race_number, 'row_index', r.row_index)
        ORDER BY f.path DESC`,
    );
    const raw1e400 = (await db.pool.query(`SELECT (1e400)::text AS t`)).rows[0].t as string;
    expect(rows).toEqual([
      { path: 'Classes[].Races[].Results[].ResultStart', value: '1e400', reason: REASON('1e400'), start: null, finish: expect.any(Number), raw_start: raw1e400, raw_place: expect.any(String), start_type: 'number', place_type: expect.any(String) },
      { path: 'Classes[].Races[].Results[].ResultPlace', value: BIG, reason: REASON(BIG), start: expect.any(Number), finish: null, raw_start: expect.any(String), raw_place: BIG, start_type: expect.any(String), place_type: 'number' },
    ]);
    const kept = await db.pool.query(`SELECT body, encoding FROM pitwall.responses WHERE endpoint = 'results' AND params = $1`, [canonicalQuery({ EventId: eventId! })]);
    const text = await decompressBody(kept.rows[0].body, kept.rows[0].encoding);
    expect(text).toContain('"ResultStart":1e400');
    expect(text).toContain(`"ResultPlace":${BIG}`);
  });
});
