import { expect } from 'vitest';

import { tableMeta } from '../../../src/db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../../src/db/schema/mrp.js';
import type { Extracted } from '../../../src/sync/extract/types.js';

const INT4 = { min: -(2 ** 31), max: 2 ** 31 - 1 };
// U+0000, or a surrogate that is not half of a pair: PostgreSQL text and jsonb refuse both.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const DECIMAL = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The first string or key in `value` PostgreSQL could not store, as a path; null when there is none. */
function unstorablePath(value: unknown, path = '$'): string | null {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    if (UNSTORABLE.test(k)) return `${path} key`;
    const found = unstorablePath(v, `${path}.${k}`);
    if (found) return found;
  }
  return null;
}

function fits(sqlType: string, v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (sqlType === 'integer') return typeof v === 'number' && Number.isInteger(v) && v >= INT4.min && v <= INT4.max;
  if (sqlType === 'boolean') return typeof v === 'boolean';
  if (sqlType === 'text') return typeof v === 'string' && !UNSTORABLE.test(v);
  if (sqlType.startsWith('numeric')) return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && DECIMAL.test(v));
  if (sqlType.startsWith('timestamp')) return typeof v === 'string' && TIMESTAMP.test(v);
  return true;
}

/**
 * Fails unless every row of `x` is one the warehouse can hold: each value fits its column's
 * type (int4 range, text without U+0000, ...), keys are present, and `raw` is storable JSON.
 */
export function checkStorable(x: Extracted): void {
  for (const [table, rows] of Object.entries(x.rows)) {
    const meta = tableMeta(warehouseTables[table as WarehouseTableName]);
    for (const row of rows ?? []) {
      for (const c of meta.columns) {
        if (c.name === 'raw' || c.name.startsWith('_')) continue;
        const v = row[c.name];
        if (meta.keyColumns.includes(c.name)) expect(v, `${table}.${c.name} is a key`).not.toBeNull();
        expect(fits(c.sqlType, v), `${table}.${c.name} (${c.sqlType}) cannot hold ${JSON.stringify(v)?.slice(0, 80)}`).toBe(true);
      }
      expect(row.raw, `${table}.raw`).not.toBeUndefined();
      expect(unstorablePath(row.raw), `${table}.raw holds text PostgreSQL cannot store`).toBeNull();
    }
  }
}
