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

  it('marks a row the upstream no longer lists deleted after a failed attempt at its scope, which is no first load', async () => {
    // A first load of a scope (no pitwall.sync_state row) has nothing stored to mark deleted and
    // skips the statement; a scope whose last attempt failed still has its rows from before.
    const { rows } = await db.pool.query('SELECT event_id, class_id, race_number FROM mrp.results WHERE _deleted_at IS NULL ORDER BY 1, 2, 3 LIMIT 1');
    const { event_id: eventId, class_id: classId, race_number: raceNumber } = rows[0];
    await db.pool.query(
      `INSERT INTO mrp.results (event_id, class_id, race_number, row_index, raw, _run_id) VALUES ($1, $2, $3, 999, '{}', 1)`,
      [eventId, classId, raceNumber],
    );
    const failed = await db.pool.query(
      `UPDATE pitwall.sync_state SET status = 'error', response_hash = NULL, last_error = 'HTTP 503'
        WHERE endpoint = 'results' AND params = $1`,
      [`EventId=${eventId}`],
    );
    expect(failed.rowCount).toBe(1);
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    expect(summary.tables.results?.deleted).toBe(1);
    const stale = await db.pool.query('SELECT _deleted_at FROM mrp.results WHERE event_id = $1 AND row_index = 999', [eventId]);
    expect(stale.rows[0]?._deleted_at).not.toBeNull();
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
