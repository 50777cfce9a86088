import { describe, expect, it } from 'vitest';

import { tableMeta } from '../../src/db/load/table-meta.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';
import { levelsOf } from '../../src/endpoints/declare.js';
import { hasOwnRow } from '../../src/endpoints/endpoint.js';
import { endpoint, ENDPOINTS } from '../../src/sync/endpoints.js';
import { runCli } from '../helpers/cli.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';

const lineups = endpoint('lineups');
const pointStandings = endpoint('point_standings');
const results = endpoint('results');

const driverOf = (id: number) => [{ DriverId: id, DriverFName: 'A', DriverLName: 'B' }];

describe('fields new at a level without rows of its own', () => {
  it('are kept in outer_raw of every row below, by level path, and nothing is added under the declared shapes', () => {
    const body = [{ ClassId: 1, ClassName: 'Late', ClassSponsor: 'Acme', Races: [{ RaceName: 'Heat', RaceLength: 10, Lineup: [{ StartPosition: 1, CarNum: '7', Driver: driverOf(3) }] }] }];
    const x = lineups.extract(body, { EventId: '9' }, {});
    expect(x.rows.lineups).toHaveLength(1);
    expect(JSON.parse(x.rows.lineups![0]!.outer_raw as string)).toEqual({ 'Classes[]': { ClassSponsor: 'Acme' }, 'Classes[].Races[]': { RaceLength: 10 } });

    const plain = [{ ClassId: 1, ClassName: 'Late', Races: [{ RaceName: 'Heat', Lineup: [{ StartPosition: 1, CarNum: '7', Driver: driverOf(3) }] }] }];
    expect(lineups.extract(plain, { EventId: '9' }, {}).rows.lineups![0]!.outer_raw).toBeUndefined();

    const r = results.extract([{ ClassId: 2, Purse: 500, Races: [{ RaceName: 'A', Results: [{ ResultPlace: 1 }] }] }], { EventId: '9' }, {});
    expect(JSON.parse(r.rows.races![0]!.outer_raw as string)).toEqual({ 'Classes[]': { Purse: 500 } });
    expect(JSON.parse(r.rows.results![0]!.outer_raw as string)).toEqual({ 'Classes[]': { Purse: 500 } });

    const envelope = { RequestValid: 1, ItemsReturned: 1, ClassId: 4, PointsAsOf: '', PointsNote: 'provisional', Points: [{ Position: 1, Driver: driverOf(3) }] };
    const p = pointStandings.extract(envelope.Points, { ScheduleId: '1', ClassId: '4' }, envelope);
    expect(JSON.parse(p.rows.point_standings![0]!.outer_raw as string)).toEqual({ $: { PointsNote: 'provisional' } });
  });

  it('have an outer_raw column wherever a level above the rows has no row of its own', () => {
    for (const ep of ENDPOINTS) {
      const levels = levelsOf(ep.list.level);
      levels.forEach((l, i) => {
        const underNoRow = ep.envelope !== undefined || levels.slice(0, i).some((above) => !hasOwnRow(above));
        if (hasOwnRow(l) && underNoRow) expect(tableMeta(warehouseTables[l.table]).contentColumns, `${ep.name} ${l.path}`).toContain('outer_raw');
      });
    }
  });
});

describe('fields new at the lineup class, the feed event and the points envelope, end to end', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 51, quirks: { doubleComma: 0 } }); // a `,,` body passes the proxy unchanged
  const proxy = useResource(
    'adding proxy',
    () =>
      startShapeProxy(sim.url, (path, body: Record<string, unknown>) => {
        if (path === '/v2/schedules/lineups/') for (const k of (body.Classes as Array<Record<string, unknown>>) ?? []) k.ClassSponsor = 'Acme';
        else if (path === '/v2/schedules/results/feed/') for (const e of (body.Events as Array<Record<string, unknown>>) ?? []) e.Weather = 'dry';
        else if (path === '/v2/points/') body.PointsNote = 'provisional';
        else return undefined;
        return body;
      }),
    (p) => p.close(),
  );

  it('finds each value by SQL next to its rows, and drift names the column that keeps it', async () => {
    expect((await syncOnce(db, { ...sim, url: proxy.url } as typeof sim)).status).toBe('succeeded');
    const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);
    expect(await count(`SELECT count(*) AS n FROM mrp.lineups WHERE outer_raw -> 'Classes[]' ->> 'ClassSponsor' = 'Acme'`)).toBe(await count('SELECT count(*) AS n FROM mrp.lineups'));
    expect(await count(`SELECT count(*) AS n FROM mrp.results_feed WHERE outer_raw -> 'Events[]' ->> 'Weather' = 'dry'`)).toBe(await count('SELECT count(*) AS n FROM mrp.results_feed'));
    expect(await count(`SELECT count(*) AS n FROM mrp.point_standings WHERE outer_raw -> '$' ->> 'PointsNote' = 'provisional'`)).toBe(await count('SELECT count(*) AS n FROM mrp.point_standings'));
    expect(await count('SELECT count(*) AS n FROM mrp.lineups')).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM mrp.results WHERE outer_raw IS NOT NULL')).toBe(0);

    const drift = await runCli(['drift', '--json'], { DATABASE_URL: db.url, PITWALL_LOG_LEVEL: 'warn' });
    expect(drift.code, drift.stderr).toBe(0);
    const report = JSON.parse(drift.stdout) as { endpoints: Array<{ endpoint: string; unmodelled: Array<{ path: string; keptIn: string }> }> };
    const kept = (ep: string, path: string) => report.endpoints.find((e) => e.endpoint === ep)?.unmodelled.find((u) => u.path === path)?.keptIn;
    expect(kept('lineups', 'Classes[].ClassSponsor')).toBe('mrp.lineups.outer_raw');
    expect(kept('results_feed', 'Events[].Weather')).toBe('mrp.results_feed.outer_raw');
    expect(kept('point_standings', 'PointsNote')).toBe('mrp.point_standings.outer_raw');
  });
});
