import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';

import { quoteIdent, tableMeta } from '../../src/db/load/table-meta.js';
import { bookkeeping } from '../../src/db/schema/columns.js';
import { drivers, results } from '../../src/db/schema/mrp.js';

describe('tableMeta', () => {
  it('reads a single-column key from the column and a composite key from the table config', () => {
    expect(tableMeta(drivers)).toMatchObject({ qualifiedName: '"mrp"."drivers"', keyColumns: ['driver_id'] });
    expect(tableMeta(results).keyColumns).toEqual(['event_id', 'class_id', 'race_number', 'row_index']);
  });

  it('lists as content every column that is neither key nor bookkeeping, and types every column', () => {
    expect(tableMeta(results).contentColumns).toEqual(['driver_id', 'driver_name', 'finish', 'start', 'car_number', 'dnf', 'dns', 'dq', 'outer_raw']);
    expect(tableMeta(results).columns).toContainEqual({ name: '_deleted_at', sqlType: 'timestamp with time zone' });
    expect(tableMeta(drivers)).toBe(tableMeta(drivers));
  });

  it('refuses identifiers it would have to escape, and tables it cannot load', () => {
    expect(quoteIdent('event_id')).toBe('"event_id"');
    for (const bad of ['Event', 'a"b', 'a b', '1st', '']) expect(() => quoteIdent(bad)).toThrow(/refusing SQL identifier/);
    const odd = pgSchema('mrp');
    expect(() => tableMeta(odd.table('odd', { 'Weird Name': integer().primaryKey(), ...bookkeeping() }))).toThrow(/refusing/);
    expect(() => tableMeta(odd.table('keyless', { note: text('note'), ...bookkeeping() }))).toThrow(/no primary key/);
    expect(() => tableMeta(odd.table('plain', { id: integer('id').primaryKey() }))).toThrow(/lacks bookkeeping/);
  });
});
