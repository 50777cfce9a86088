import type pg from 'pg';

import { tableMeta } from '../../src/db/load/table-meta.js';
import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';

// What the upstream sent as kept (raw, outer_raw), the bookkeeping and the source (a truth is one
// source's): not part of the ground truth's typed columns.
const BOOKKEEPING = new Set(['source', 'raw', 'outer_raw', '_run_id', '_first_seen_at', '_synced_at', '_deleted_at']);

/** A SELECT expression that renders a column the way the simulator's ground truth states it. */
function canonical(name: string, sqlType: string): string {
  const col = `"${name}"`;
  if (sqlType.startsWith('timestamp')) return `to_char(${col}, 'YYYY-MM-DD HH24:MI:SS') AS ${col}`;
  if (sqlType.startsWith('numeric')) return `trim_scale(${col})::text AS ${col}`;
  return col;
}

/**
 * The live (not deleted) rows one source loaded into a warehouse table, content columns only, in
 * the ground truth's canonical form and key order, ready to compare with `/__simulator/truth`.
 */
export async function readLiveRows(db: pg.Pool, table: WarehouseTableName, source = DEFAULT_SOURCE): Promise<Record<string, unknown>[]> {
  const meta = tableMeta(warehouseTables[table]);
  const cols = meta.columns.filter((c) => !BOOKKEEPING.has(c.name));
  const { rows } = await db.query(
    `SELECT ${cols.map((c) => canonical(c.name, c.sqlType)).join(', ')} FROM ${meta.qualifiedName}
      WHERE _deleted_at IS NULL AND source = $1 ORDER BY ${meta.keyColumns.map((k) => `"${k}"`).join(', ')}`,
    [source],
  );
  return rows;
}

export type Truth = Record<WarehouseTableName, Record<string, unknown>[]>;

/** The truth of the simulator's one site, or of the site whose key is `key`. */
export async function fetchTruth(simUrl: string, key?: string): Promise<Truth> {
  const res = await fetch(`${simUrl}/__simulator/truth${key === undefined ? '' : `?key=${encodeURIComponent(key)}`}`);
  if (!res.ok) throw new Error(`truth: HTTP ${res.status}`);
  return (await res.json()) as Truth;
}

/**
 * Per table: the first rows that differ, or an empty object when one source's rows (the default
 * source's unless named) equal the truth: the simulator's at `simUrl` now, or one fetched before
 * (a test that stops the simulator).
 */
export async function diffAgainstTruth(db: pg.Pool, simUrlOrTruth: string | Truth, source = DEFAULT_SOURCE): Promise<Record<string, unknown>> {
  const truth = typeof simUrlOrTruth === 'string' ? await fetchTruth(simUrlOrTruth) : simUrlOrTruth;
  const diffs: Record<string, unknown> = {};
  for (const table of Object.keys(warehouseTables) as WarehouseTableName[]) {
    const want = truth[table] ?? [];
    const got = await readLiveRows(db, table, source);
    const a = JSON.stringify(got);
    const b = JSON.stringify(want);
    if (a === b) continue;
    const i = got.findIndex((row, n) => JSON.stringify(row) !== JSON.stringify(want[n]));
    const at = i === -1 ? Math.min(got.length, want.length) : i;
    diffs[table] = { warehouseRows: got.length, truthRows: want.length, firstDifference: { warehouse: got[at], truth: want[at] } };
  }
  return diffs;
}
