import { tableMeta } from '../db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';

import type { Row } from './extract/types.js';

/**
 * The dimension rows (drivers, classes) this run has committed, by table and key, with their
 * typed content. A driver recurs in every result, lineup, entry list and passes response of
 * every event they race: on a first sync of the medium world that is some 360k driver rows
 * upserted for 583 drivers, twice as many rows as the results themselves. A row identical to
 * one this run has already committed need not go to the database again.
 *
 * Only committed rows are remembered (a rolled-back transaction's rows may not be there), and
 * only for the run (another process may change them later; the next run compares again).
 * "Identical" is judged as the loader judges dimension rows: by the typed columns, not `raw`.
 */
export class DimensionCache {
  private readonly byTable = new Map<WarehouseTableName, Map<unknown, string>>();

  /** The row's key (the value itself for a one-column key) and its typed content as one string. */
  private static entry(table: WarehouseTableName, row: Row): [unknown, string] {
    const { keyColumns, contentColumns } = tableMeta(warehouseTables[table]);
    const key = keyColumns.length === 1 ? row[keyColumns[0] as string] : JSON.stringify(keyColumns.map((c) => row[c] ?? null));
    return [key, JSON.stringify(contentColumns.map((c) => row[c] ?? null))];
  }

  /** The rows that differ from (or are not among) the committed ones, and how many were left out. */
  fresh(table: WarehouseTableName, rows: readonly Row[]): { rows: Row[]; known: number } {
    const seen = this.byTable.get(table);
    if (!seen) return { rows: rows.slice(), known: 0 };
    const out = rows.filter((row) => {
      const [key, content] = DimensionCache.entry(table, row);
      return seen.get(key) !== content;
    });
    return { rows: out, known: rows.length - out.length };
  }

  /** Call once the transaction that wrote `rows` has committed. */
  remember(table: WarehouseTableName, rows: readonly Row[]): void {
    let seen = this.byTable.get(table);
    if (!seen) this.byTable.set(table, (seen = new Map()));
    for (const row of rows) seen.set(...DimensionCache.entry(table, row));
  }
}
