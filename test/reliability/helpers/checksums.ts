import { createHash } from 'node:crypto';

import type pg from 'pg';

import { warehouseTables, type WarehouseTableName } from '../../../src/db/schema/mrp.js';
import { fetchTruth, readLiveRows } from '../../helpers/warehouse.js';

/**
 * One checksum per warehouse table: md5 over its live rows, content columns only, in the
 * canonical form and key order the simulator's ground truth uses (see test/helpers/warehouse.ts).
 * Equal checksums mean the same rows with the same values, and no row twice.
 */
export type Checksums = Record<WarehouseTableName, { rows: number; md5: string }>;

const TABLES = Object.keys(warehouseTables) as WarehouseTableName[];

function checksum(rows: readonly unknown[]): { rows: number; md5: string } {
  return { rows: rows.length, md5: createHash('md5').update(JSON.stringify(rows)).digest('hex') };
}

export async function warehouseChecksums(pool: pg.Pool): Promise<Checksums> {
  const out = {} as Checksums;
  for (const table of TABLES) out[table] = checksum(await readLiveRows(pool, table));
  return out;
}

export async function truthChecksums(simUrl: string): Promise<Checksums> {
  const truth = await fetchTruth(simUrl);
  const out = {} as Checksums;
  for (const table of TABLES) out[table] = checksum(truth[table] ?? []);
  return out;
}

/** Tables whose checksums differ, with both sides' row counts. */
export function checksumDifferences(got: Checksums, want: Checksums): Record<string, { warehouseRows: number; truthRows: number }> {
  const diffs: Record<string, { warehouseRows: number; truthRows: number }> = {};
  for (const table of TABLES) {
    if (got[table].md5 !== want[table].md5) diffs[table] = { warehouseRows: got[table].rows, truthRows: want[table].rows };
  }
  return diffs;
}
