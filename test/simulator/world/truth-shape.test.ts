import { describe, expect, it } from 'vitest';

import { tableMeta } from '../../../src/db/load/table-meta.js';
import { type WarehouseTableName, warehouseTables } from '../../../src/db/schema/mrp.js';

import { sharedWorld } from './helpers.js';

describe('the ground truth speaks the warehouse’s language', () => {
  const truth = sharedWorld('small').truth();

  it.each(Object.keys(warehouseTables) as WarehouseTableName[])('%s: content columns only, sorted by key, canonical values', (name) => {
    const meta = tableMeta(warehouseTables[name]);
    const rows = truth[name];
    expect(rows.length).toBeGreaterThan(0);
    // outer_raw keeps what the upstream sent beside the typed columns, like raw: not part of the truth.
    const columns = [...meta.keyColumns, ...meta.contentColumns.filter((c) => c !== 'outer_raw')].sort();
    const keyOf = (row: Record<string, unknown>) => JSON.stringify(meta.keyColumns.map((k) => row[k]));
    const keys = new Set<string>();
    rows.forEach((row, i) => {
      expect(Object.keys(row).sort()).toEqual(columns);
      keys.add(keyOf(row));
      const previous = rows[i - 1];
      if (previous) {
        const order = meta.keyColumns.map((k) => [previous[k], row[k]] as const).find(([a, b]) => a !== b);
        expect(order && (order[0] ?? 0) < (order[1] ?? 0), `${name} row ${i} follows its predecessor`).toBe(true);
      }
      for (const value of Object.values(row)) {
        expect(value).not.toBe(''); // empty text is null
        if (typeof value === 'string' && /^\d+\.\d+$/.test(value)) expect(value).not.toMatch(/0$/); // no trailing zeros
        if (typeof value === 'string' && /^\d{4}-/.test(value)) expect(value).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      }
    });
    expect(keys.size).toBe(rows.length);
  });
});
