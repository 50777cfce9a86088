import { beforeAll, describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

import { featureRows, results, standings, worldTruth } from './truth.js';

describe.each(BACKENDS)('the analytics views (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 8 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  const rows = async (sql: string) => (await db.pool.query(sql)).rows as Array<Record<string, unknown>>;

  it('event_results has one row per car per race, names attached, and marks each class\'s last race the feature', async () => {
    const truth = await worldTruth(sim.url);
    const got = await rows('SELECT count(*)::int AS n, count(*) FILTER (WHERE is_feature)::int AS f, count(*) FILTER (WHERE driver_name IS NULL OR class_name IS NULL OR schedule_ids IS NULL)::int AS unnamed FROM analytics.event_results');
    expect(got[0]).toEqual({ n: results(truth).length, f: featureRows(truth).length, unnamed: 0 });
  });

  it('current_standings has every standing with its gap to the leader', async () => {
    const truth = await worldTruth(sim.url);
    const leader = new Map<string, number>();
    for (const s of standings(truth)) if (s.position === 1) leader.set(`${s.schedule_id}:${s.class_id}`, Number(s.point_total));
    const got = await rows('SELECT schedule_id, class_id, driver_id, gap_to_leader::float8 AS gap FROM analytics.current_standings');
    const expected = standings(truth).map((s) => ({ ...s, gap: leader.get(`${s.schedule_id}:${s.class_id}`)! - Number(s.point_total) }));
    expect(got.map((r) => `${r.schedule_id}:${r.class_id}:${r.driver_id}:${r.gap}`).sort()).toEqual(expected.map((s) => `${s.schedule_id}:${s.class_id}:${s.driver_id}:${s.gap}`).sort());
  });

  it('driver_season_summary agrees with the upstream standings on starts, wins, top 5s and top 10s', async () => {
    const mismatches = await rows(`SELECT s.* FROM analytics.driver_season_summary AS s
      JOIN mrp.point_standings AS p USING (schedule_id, class_id, driver_id)
     WHERE (s.starts, s.wins, s.top5, s.top10) IS DISTINCT FROM (p.features, p.wins, p.top5, p.top10)`);
    const compared = await rows('SELECT count(*)::int AS n FROM analytics.driver_season_summary JOIN mrp.point_standings USING (schedule_id, class_id, driver_id)');
    expect(compared[0]!.n).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
  });

  it('events_calendar says which events have results', async () => {
    const truth = await worldTruth(sim.url);
    const withResults = new Set(results(truth).map((r) => r.event_id));
    const got = await rows('SELECT event_id, has_results FROM analytics.events_calendar ORDER BY event_id');
    expect(got).toEqual(truth.events.map((e) => ({ event_id: e.event_id, has_results: withResults.has(e.event_id as number) })));
  });

  it('leave out everything of an event cancelled upstream', async () => {
    const [victim] = await rows('SELECT event_id FROM analytics.events_calendar WHERE has_results ORDER BY event_id LIMIT 1');
    sim.world.cancelEvent(victim!.event_id as number);
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    for (const view of ['events_calendar', 'event_results']) {
      expect({ view, rows: await rows(`SELECT * FROM analytics.${view} WHERE event_id = ${victim!.event_id}`) }).toEqual({ view, rows: [] });
    }
    const kept = await rows(`SELECT count(*)::int AS n FROM mrp.results WHERE event_id = ${victim!.event_id}`);
    expect(kept[0]!.n).toBeGreaterThan(0);
  });
});
