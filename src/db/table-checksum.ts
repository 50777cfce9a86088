import type pg from 'pg';

import type { TableToCopy } from './copy-tables.js';

/** A table's rows, and an order-free digest of their copied columns. */
export interface TableChecksum {
  rows: number;
  digest: string;
}

/**
 * Settings that decide how values print as text, the same on both servers whatever their
 * configuration says: a digest compares printed rows.
 */
export const CANONICAL_TEXT_OPTIONS = '-c TimeZone=UTC -c DateStyle=ISO,YMD -c IntervalStyle=postgres -c extra_float_digits=1 -c bytea_output=hex';

/**
 * Every row's columns printed as one row value, hashed (md5, its first 64 bits) and summed: equal
 * on two servers when they hold the same rows with the same values, in any physical order, in
 * one pass with bounded memory (no sort, no aggregate string). Connections must use
 * CANONICAL_TEXT_OPTIONS.
 */
export async function tableChecksum(pool: pg.Pool, table: TableToCopy): Promise<TableChecksum> {
  const row = table.columns.length > 0 ? `ROW(${table.columns.join(', ')})::text` : "''";
  const { rows } = await pool.query<{ n: string; digest: string }>(
    `SELECT count(*)::text AS n, coalesce(sum(('x' || left(md5(${row}), 16))::bit(64)::bigint::numeric), 0)::text AS digest FROM ${table.name}`,
  );
  return { rows: Number(rows[0]?.n ?? 0), digest: rows[0]?.digest ?? '0' };
}
