import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgSchema, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

import { sourced } from './columns.js';
import { standingColumns } from './mrp.js';

/**
 * Schema `analytics`: what analysts query. Its views are SQL in migrations/ (drizzle-kit does not
 * manage views); the one table here is the history the views of standings read from.
 */
export const analytics = pgSchema('analytics');

/**
 * Every version of every standings row (mrp.point_standings) pitwall has seen, as a type-2
 * slowly changing dimension: a row is valid from `valid_from` until `valid_to` (NULL while it is
 * the current one). Written only by triggers on mrp.point_standings (migration
 * 0002_analytics_views), and only when a standing really changed, so it needs nothing from the
 * loading code and holds the same on every backend.
 */
export const pointStandingsHistory = analytics.table(
  'point_standings_history',
  {
    history_id: bigint('history_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...sourced(),
    ...standingColumns(),
    valid_from: timestamp('valid_from', { withTimezone: true }).notNull(),
    valid_to: timestamp('valid_to', { withTimezone: true }),
    // Derived, so it can never disagree with valid_to.
    is_current: boolean('is_current').generatedAlwaysAs(sql`valid_to IS NULL`),
    run_id: bigint('run_id', { mode: 'number' }),
  },
  (t) => [
    uniqueIndex('point_standings_history_current_key').on(t.schedule_id, t.class_id, t.driver_id, t.source).where(sql`valid_to IS NULL`),
    index('point_standings_history_key_idx').on(t.schedule_id, t.class_id, t.driver_id, t.source, t.valid_from),
  ],
);
