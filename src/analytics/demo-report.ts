import type pg from 'pg';

export interface WarehouseCounts {
  events: number;
  eventsWithResults: number;
  results: number;
  drivers: number;
  standings: number;
}

export interface StandingRow {
  schedule_name: string;
  class_name: string;
  position: number;
  driver_name: string;
  car_number: string | null;
  point_total: string;
  gap_to_leader: string;
}

/** How much a sync loaded, counted in the analytics views (live rows only). */
export async function warehouseCounts(db: pg.Pool): Promise<WarehouseCounts> {
  const { rows } = await db.query<WarehouseCounts>(
    `SELECT (SELECT count(*) FROM analytics.events_calendar)::int AS "events",
            (SELECT count(*) FROM analytics.events_calendar WHERE has_results)::int AS "eventsWithResults",
            (SELECT count(*) FROM analytics.event_results)::int AS "results",
            (SELECT count(*) FROM mrp.drivers WHERE _deleted_at IS NULL)::int AS "drivers",
            (SELECT count(*) FROM analytics.current_standings)::int AS "standings"`,
  );
  return rows[0]!;
}

/**
 * The top of the current standings: the latest season's biggest points schedule (the most
 * drivers ranked, usually the weekly series), `perClass` drivers of every class.
 */
export async function topOfStandings(db: pg.Pool, perClass = 3): Promise<StandingRow[]> {
  const { rows } = await db.query<StandingRow>(
    `WITH main AS (
       SELECT schedule_id FROM analytics.current_standings WHERE latest_season
        GROUP BY schedule_id ORDER BY count(*) DESC, schedule_id LIMIT 1)
     SELECT schedule_name, class_name, position, driver_name, car_number, point_total::text, gap_to_leader::text
       FROM analytics.current_standings JOIN main USING (schedule_id)
      WHERE position <= $1
      ORDER BY class_name, position`,
    [perClass],
  );
  return rows;
}
