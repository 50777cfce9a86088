import { beforeAll, describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

describe.each(BACKENDS)('a sync after the upstream changes (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 5 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  const count = async (sql: string) => Number((await db.pool.query(sql)).rows[0]?.n);

  it('adds the results posted when the clock moves on, and moves the standings', async () => {
    const resultsBefore = await count('SELECT count(*) AS n FROM mrp.results');
    const standingsBefore = (await db.pool.query('SELECT schedule_id, class_id, driver_id, point_total FROM mrp.point_standings ORDER BY 1,2,3')).rows;
    sim.world.advanceDays(21);
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    expect(await count('SELECT count(*) AS n FROM mrp.results')).toBeGreaterThan(resultsBefore);
    const standingsAfter = (await db.pool.query('SELECT schedule_id, class_id, driver_id, point_total FROM mrp.point_standings ORDER BY 1,2,3')).rows;
    expect(standingsAfter).not.toEqual(standingsBefore);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('updates a corrected result in place', async () => {
    const { rows } = await db.pool.query(
      `SELECT event_id, class_id, race_number, row_index, dq FROM mrp.results WHERE NOT dq ORDER BY 1,2,3,4 LIMIT 1`,
    );
    const target = rows[0];
    sim.world.correctResult({
      eventId: target.event_id,
      classId: target.class_id,
      raceNumber: target.race_number,
      rowIndex: target.row_index,
      set: { dq: true },
    });
    const summary = await syncOnce(db, sim);
    expect(summary.tables.results?.updated).toBeGreaterThanOrEqual(1);
    const after = await db.pool.query(
      'SELECT dq FROM mrp.results WHERE event_id=$1 AND class_id=$2 AND race_number=$3 AND row_index=$4',
      [target.event_id, target.class_id, target.race_number, target.row_index],
    );
    expect(after.rows[0]?.dq).toBe(true);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('marks a cancelled event and all its rows deleted, without removing them', async () => {
    const { rows } = await db.pool.query('SELECT event_id FROM mrp.results GROUP BY event_id ORDER BY event_id LIMIT 1');
    const eventId = rows[0]?.event_id as number;
    sim.world.cancelEvent(eventId);
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    for (const table of ['events', 'schedule_events', 'event_classes', 'races', 'results', 'lineups', 'entry_list', 'driver_passes']) {
      const live = await count(`SELECT count(*) AS n FROM mrp.${table} WHERE event_id = ${eventId} AND _deleted_at IS NULL`);
      const kept = await count(`SELECT count(*) AS n FROM mrp.${table} WHERE event_id = ${eventId}`);
      expect({ table, live }).toEqual({ table, live: 0 });
      expect(kept).toBeGreaterThan(0);
    }
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('renames a driver everywhere the driver is seen', async () => {
    const { rows } = await db.pool.query('SELECT driver_id FROM mrp.drivers ORDER BY driver_id LIMIT 1');
    const driverId = rows[0]?.driver_id as number;
    sim.world.renameDriver(driverId, { firstName: 'Renée', lastName: "O'Malley-Ñúñez" });
    await syncOnce(db, sim);
    const after = await db.pool.query('SELECT first_name, last_name FROM mrp.drivers WHERE driver_id = $1', [driverId]);
    expect(after.rows[0]).toEqual({ first_name: 'Renée', last_name: "O'Malley-Ñúñez" });
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
