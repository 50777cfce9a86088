/**
 * One row for a warehouse table: its key columns, its content columns (a missing one loads as
 * NULL) and `raw`, the upstream item (any JSON value). Values are already converted for their
 * column: integers as numbers, text as strings, booleans, `numeric` as decimal strings,
 * `timestamp` as 'YYYY-MM-DD HH:MM:SS' strings.
 */
export type LoadRow = Record<string, unknown>;

/** What one load did: rows new to the table, rows whose content changed or that came back, rows left alone. */
export interface LoadCounts {
  inserted: number;
  updated: number;
  /** Identical to a row stored before the run: not written. */
  unchanged: number;
  /** Identical to a row this run stored before this call (see upsertRows' `sameRun`): not written. */
  seenAgain: number;
}
