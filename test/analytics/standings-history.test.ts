import { beforeAll, describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

const CONTENT = 'position, car_number, point_total, wins, top5, top10, features, points_as_of';

describe.each(BACKENDS)('the standings history (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 12 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  const count = async (sql: string) => Number((await db.pool.query(sql)).rows[0].n);
  const currentDiffers = () =>
    count(`SELECT count(*) AS n FROM (
             (SELECT schedule_id, class_id, driver_id, ${CONTENT} FROM mrp.point_standings WHERE _deleted_at IS NULL
              EXCEPT SELECT schedule_id, class_id, driver_id, ${CONTENT} FROM analytics.point_standings_history WHERE is_current)
             UNION ALL
             (SELECT schedule_id, class_id, driver_id, ${CONTENT} FROM analytics.point_standings_history WHERE is_current
              EXCEPT SELECT schedule_id, class_id, driver_id, ${CONTENT} FROM mrp.point_standings WHERE _deleted_at IS NULL)) AS d`);

  it('starts with one current version per standing, equal to it', async () => {
    expect(await count('SELECT count(*) AS n FROM analytics.point_standings_history')).toBe(await count('SELECT count(*) AS n FROM mrp.point_standings'));
    expect(await currentDiffers()).toBe(0);
  });

  it('adds nothing when a sync changes nothing', async () => {
    const versions = await count('SELECT count(*) AS n FROM analytics.point_standings_history');
    await syncOnce(db, sim);
    expect(await count('SELECT count(*) AS n FROM analytics.point_standings_history')).toBe(versions);
  });

  it('adds a version only for the standings that changed, closing the one before at that instant', async () => {
    const before = await count('SELECT count(*) AS n FROM analytics.point_standings_history');
    sim.world.advanceDays(21);
    const summary = await syncOnce(db, sim);
    const changed = (summary.tables.point_standings?.updated ?? 0) + (summary.tables.point_standings?.inserted ?? 0);
    expect(changed).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM analytics.point_standings_history')).toBe(before + changed);
    expect(await currentDiffers()).toBe(0);
    const gaps = await count(`SELECT count(*) AS n FROM analytics.point_standings_history AS h
      JOIN LATERAL (SELECT min(n.valid_from) AS next_from FROM analytics.point_standings_history AS n
                     WHERE (n.schedule_id, n.class_id, n.driver_id) = (h.schedule_id, h.class_id, h.driver_id) AND n.history_id > h.history_id) AS x ON true
      WHERE h.valid_to IS DISTINCT FROM x.next_from`);
    expect(gaps).toBe(0);
  });

  it('closes a standing marked deleted, and opens it again when it comes back, whoever writes the table', async () => {
    const key = 'schedule_id = (SELECT min(schedule_id) FROM mrp.point_standings) AND driver_id = (SELECT min(driver_id) FROM mrp.point_standings)';
    await db.pool.query(`UPDATE mrp.point_standings SET _deleted_at = now() WHERE ${key}`);
    expect(await count(`SELECT count(*) AS n FROM analytics.point_standings_history WHERE is_current AND ${key}`)).toBe(0);
    await db.pool.query(`UPDATE mrp.point_standings SET _deleted_at = NULL WHERE ${key}`);
    expect(await count(`SELECT count(*) AS n FROM analytics.point_standings_history WHERE is_current AND ${key}`)).toBeGreaterThan(0);
    expect(await currentDiffers()).toBe(0);
  });
});
