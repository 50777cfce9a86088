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

  /**
   * A function giving a row's key (the value itself for a one-column key) and its typed content
   * as one string. Made once per call rather than per row: a first sync passes some 360k rows.
   */
  private static entries(table: WarehouseTableName): (row: Row) => [unknown, string] {
    const { keyColumns, contentColumns } = tableMeta(warehouseTables[table]);
    const single = keyColumns.length === 1 ? (keyColumns[0] as string) : null;
    const content = new Array<unknown>(contentColumns.length);
    return (row) => {
      for (let i = 0; i < contentColumns.length; i++) content[i] = row[contentColumns[i] as string] ?? null;
      const key = single !== null ? row[single] : JSON.stringify(keyColumns.map((c) => row[c] ?? null));
      return [key, JSON.stringify(content)];
    };
  }

  /** The rows that differ from (or are not among) the committed ones, and how many were left out. */
  fresh(table: WarehouseTableName, rows: readonly Row[]): { rows: Row[]; known: number } {
    const seen = this.byTable.get(table);
    if (!seen) return { rows: rows.slice(), known: 0 };
    const entry = DimensionCache.entries(table);
    const out = rows.filter((row) => {
      const [key, content] = entry(row);
      return seen.get(key) !== content;
    });
    return { rows: out, known: rows.length - out.length };
  }

  /** Call once the transaction that wrote `rows` has committed. */
  remember(table: WarehouseTableName, rows: readonly Row[]): void {
    let seen = this.byTable.get(table);
    if (!seen) this.byTable.set(table, (seen = new Map()));
    const entry = DimensionCache.entries(table);
    for (const row of rows) seen.set(...entry(row));
  }
}
