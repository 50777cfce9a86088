import { sql } from 'drizzle-orm';
import { bigint, jsonb, text, timestamp } from 'drizzle-orm/pg-core';

/** The source of a warehouse without a PITWALL_SOURCES file: its one key, MRP_API_KEY. */
export const DEFAULT_SOURCE = 'default';

/** The column that names a row's source. */
export const SOURCE_COLUMN = 'source';

/**
 * `source`: the name of the source (one API key, one site) whose responses produced the row, in
 * every key, so each source's rows, deletions and progress stay its own. In the `mrp` keys it
 * comes last: first, it would begin every comparison in the index with a text comparison that
 * decides nothing in a warehouse of one source (migration 0019 has the figures). The default
 * names the single source of a warehouse without a PITWALL_SOURCES file (and the rows of a
 * warehouse made before sources existed); pitwall's own writes always name it.
 */
export function sourced() {
  return { source: text(SOURCE_COLUMN).notNull().default(DEFAULT_SOURCE) };
}

/**
 * Bookkeeping columns carried by every data row in schema `mrp`.
 *
 * - `raw`: the upstream item exactly as received (nested arrays that become rows of their own
 *   are left out of the parent's raw), so a field pitwall does not model is never lost.
 * - `_run_id`: the sync run that last wrote the row (pitwall.sync_runs.run_id).
 * - `_first_seen_at`: when the row was first inserted; never changed afterwards.
 * - `_synced_at`: when the row's content last changed. Unchanged rows are deliberately not
 *   rewritten, so this is *not* "last confirmed"; per-scope freshness lives in pitwall.sync_state.
 * - `_deleted_at`: set when a complete upstream scope no longer contains the row; cleared when
 *   it comes back. Rows are never hard-deleted.
 */
export function bookkeeping() {
  return {
    raw: jsonb('raw').notNull(),
    _run_id: bigint('_run_id', { mode: 'number' }).notNull(),
    _first_seen_at: timestamp('_first_seen_at', { withTimezone: true }).notNull().default(sql`now()`),
    _synced_at: timestamp('_synced_at', { withTimezone: true }).notNull().default(sql`now()`),
    _deleted_at: timestamp('_deleted_at', { withTimezone: true }),
  };
}

/** Names of the bookkeeping columns; loaders and comparisons treat them apart from content. */
export const BOOKKEEPING_COLUMNS = ['raw', '_run_id', '_first_seen_at', '_synced_at', '_deleted_at'] as const;

/**
 * `outer_raw`, on the tables whose rows sit below a level of the response that has no row of its
 * own (a lineup's race and class, a results class, the feed's event and class, the points
 * envelope): the fields of those levels that no declaration models, by level path, so a field
 * new there is kept next to the rows it belongs to. NULL when there are none, which is always
 * under the declared shapes.
 */
export function outerRaw() {
  return { outer_raw: jsonb('outer_raw') };
}
