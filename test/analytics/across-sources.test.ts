import { beforeAll, describe, expect, it } from 'vitest';

import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

import { results, worldTruth } from './truth.js';

/**
 * Two sources that saw the same upstream entities: one source synced from the simulator, then
 * its rows copied under a second source name, as a series site sees the events held at a member
 * track (ids are global). The views show each entity once, from the source that changed it last.
 */
describe('the analytics views across sources', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 8 });
  const rows = async (sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows as Array<Record<string, unknown>>;
  let before: Record<string, Array<Record<string, unknown>>>;
  let renamed: number;

  const SNAPSHOTS = {
    summary: 'SELECT driver_id, schedule_id, class_id, starts, wins, top5, top10, avg_start, avg_finish, positions_gained, dnfs FROM analytics.driver_season_summary ORDER BY 1, 2, 3',
    standings: 'SELECT schedule_id, class_id, driver_id, position, point_total, gap_to_leader FROM analytics.current_standings ORDER BY 1, 2, 3',
    history: 'SELECT schedule_id, class_id, driver_id, version, point_total FROM analytics.standings_history ORDER BY 1, 2, 3, 4',
  };

  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    before = {};
    for (const [name, sql] of Object.entries(SNAPSHOTS)) before[name] = await rows(sql);
    // Every mrp row again under source 'series', loaded a minute later; then one event renamed by
    // the first source after that, so the two disagree and the first has the newer change.
    const tables = await rows(`SELECT table_name, string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) FILTER (WHERE column_name NOT IN ('source', '_synced_at')) AS cols
                                 FROM information_schema.columns WHERE table_schema = 'mrp' GROUP BY table_name`);
    // One transaction: the foreign keys are checked at its commit, whatever the order of the copies.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      for (const t of tables) {
        await client.query(`INSERT INTO mrp.${t.table_name as string} (source, _synced_at, ${t.cols as string})
                            SELECT 'series', _synced_at + interval '1 minute', ${t.cols as string} FROM mrp.${t.table_name as string}`);
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const [ev] = await rows(`SELECT min(event_id) AS id FROM mrp.events`);
    renamed = ev!.id as number;
    await db.pool.query(`UPDATE mrp.events SET event_name = 'Renamed by default', _synced_at = now() + interval '1 hour' WHERE source = 'default' AND event_id = $1`, [renamed]);
  });

  it('events_calendar has each event once, with both sources, values from the source that changed it last', async () => {
    const got = await rows(`SELECT count(*)::int AS n, count(DISTINCT event_id)::int AS ids,
                                   count(*) FILTER (WHERE sources = ARRAY['default', 'series'])::int AS both_sources,
                                   count(*) FILTER (WHERE source = 'series')::int AS from_series
                              FROM analytics.events_calendar`);
    const events = await rows(`SELECT count(*)::int AS n FROM mrp.events WHERE source = 'default' AND _deleted_at IS NULL`);
    expect(got[0]).toEqual({ n: events[0]!.n, ids: events[0]!.n, both_sources: events[0]!.n, from_series: (events[0]!.n as number) - 1 });
    expect(await rows(`SELECT event_name, source FROM analytics.events_calendar WHERE event_id = $1`, [renamed])).toEqual([
      { event_name: 'Renamed by default', source: 'default' },
    ]);
  });

  it('event_results has one row per car per race, not one per source', async () => {
    const truth = await worldTruth(sim.url);
    const got = await rows(`SELECT count(*)::int AS n, count(DISTINCT (event_id, class_id, race_number, row_index))::int AS keys FROM analytics.event_results`);
    expect(got[0]).toEqual({ n: results(truth).length, keys: results(truth).length });
  });

  it('driver_season_summary, current_standings and standings_history count each event and standing once', async () => {
    for (const [name, sql] of Object.entries(SNAPSHOTS)) expect({ [name]: await rows(sql) }).toEqual({ [name]: before[name] });
    const sources = await rows(`SELECT DISTINCT sources FROM analytics.current_standings UNION SELECT DISTINCT sources FROM analytics.driver_season_summary`);
    expect(sources).toEqual([{ sources: ['default', 'series'] }]);
  });

  it('filter by one source with ANY (sources); the mrp tables filtered by source show what it sent', async () => {
    const viaSeries = await rows(`SELECT count(*)::int AS n FROM analytics.events_calendar WHERE 'series' = ANY (sources)`);
    const nowhere = await rows(`SELECT count(*)::int AS n FROM analytics.events_calendar WHERE 'track-z' = ANY (sources)`);
    expect(viaSeries[0]!.n).toBeGreaterThan(0);
    expect(nowhere).toEqual([{ n: 0 }]);
    expect(await rows(`SELECT source, event_name FROM mrp.events WHERE event_id = $1 ORDER BY source`, [renamed])).toEqual([
      { source: 'default', event_name: 'Renamed by default' },
      { source: 'series', event_name: expect.not.stringMatching(/Renamed/) },
    ]);
  });
});
