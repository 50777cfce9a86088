import { DatabaseError } from '../errors.js';

import type { LoadRow } from './load-row.js';

type KeyValue = number | string | bigint;

function keyValue(row: LoadRow, column: string): KeyValue {
  const value = row[column];
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint') return value;
  // What Postgres would answer for a key it cannot store, raised before anything is sent.
  const sqlstate = value === null || value === undefined ? '23502' : '22P02';
  throw new DatabaseError(`key column ${column} must be a number or string, got ${value === null ? 'null' : typeof value}`, { sqlstate, retryable: false });
}

/**
 * The batch as the upsert needs it: one row per key (the last one given wins, as the newest
 * upstream item does) and ordered by key.
 *
 * Why both: Postgres refuses an INSERT ... ON CONFLICT that touches the same row twice, and two
 * transactions that lock overlapping rows in different orders can deadlock; sorting every batch
 * the same way gives every loader the same lock order.
 */
export function dedupeSortedByKey(rows: readonly LoadRow[], keyColumns: readonly string[]): LoadRow[] {
  for (const row of rows) for (const k of keyColumns) keyValue(row, k);
  const compare = (a: LoadRow, b: LoadRow): number => {
    for (const k of keyColumns) {
      const x = a[k] as KeyValue;
      const y = b[k] as KeyValue;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  };
  // Array.prototype.sort is stable, so within a run of equal keys the input order survives and
  // the run's last element is the one given last.
  const sorted = rows.slice().sort(compare);
  const out: LoadRow[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const next = sorted[i + 1];
    const row = sorted[i] as LoadRow;
    if (next === undefined || compare(row, next) !== 0) out.push(row);
  }
  return out;
}
