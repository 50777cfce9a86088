import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

/**
 * The points schedules that count the given events, from the warehouse's schedule ⇄ event links.
 * A points schedule shares its ScheduleId with the schedule it scores (the simulator's model,
 * and what the vendor's SDK implies), so the join is on the id.
 */
export async function pointsSchedulesOfEvents(db: pg.Pool | pg.ClientBase, source: string, eventIds: readonly number[]): Promise<number[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await queryWithRetry<{ schedule_id: number }>(
    db,
    `SELECT DISTINCT se.schedule_id
       FROM mrp.schedule_events se
       JOIN mrp.point_schedules ps ON ps.source = se.source AND ps.schedule_id = se.schedule_id AND ps._deleted_at IS NULL
      WHERE se.source = $2 AND se._deleted_at IS NULL AND se.event_id = ANY($1::int[])
      ORDER BY se.schedule_id`,
    [eventIds, source],
  );
  return rows.map((r) => r.schedule_id);
}
