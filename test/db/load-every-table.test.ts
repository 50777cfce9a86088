import { describe, expect, it } from 'vitest';

import { markMissingDeleted } from '../../src/db/load/mark-deleted.js';
import { tableMeta } from '../../src/db/load/table-meta.js';
import { upsertRows, type LoadRow } from '../../src/db/load/upsert.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

/** A value of the column's type that differs with `n` (and with `version`, for content). */
function sampleValue(sqlType: string, n: number, version: number): unknown {
  if (sqlType === 'integer') return n * 10 + version;
  if (sqlType === 'boolean') return (n + version) % 2 === 0;
  if (sqlType.startsWith('numeric')) return `${n}.${version}5`;
  if (sqlType.startsWith('timestamp')) return `2024-0${1 + version}-1${n} 12:34:56`;
  if (sqlType === 'text') return `text ${n} v${version} it's`;
  if (sqlType === 'jsonb') return JSON.stringify({ n, version, note: "it's" });
  throw new Error(`no sample for SQL type ${sqlType}; teach this test the new type`);
}

function sampleRow(table: (typeof warehouseTables)[keyof typeof warehouseTables], n: number, version: number): LoadRow {
  const meta = tableMeta(table);
  const type = (name: string) => meta.columns.find((c) => c.name === name)!.sqlType;
  const row: LoadRow = { raw: { n, version } };
  meta.keyColumns.forEach((k, i) => {
    // In a composite key the first column stays fixed, so the rows share one scope on it.
    const fixed = i === 0 && meta.keyColumns.length > 1;
    row[k] = sampleValue(type(k), fixed ? 1 : n, 0);
  });
  for (const c of meta.contentColumns) row[c] = sampleValue(type(c), n, version);
  return row;
}

describe('loading works for every warehouse table', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const client = usePoolClient(db);

  it.each(Object.keys(warehouseTables) as (keyof typeof warehouseTables)[])('%s: insert, unchanged, update, mark missing', async (name) => {
    const table = warehouseTables[name];
    const meta = tableMeta(table);
    const v0 = [1, 2, 3].map((n) => sampleRow(table, n, 0));
    expect(await upsertRows(client, table, v0, { runId: 1 })).toEqual({ inserted: 3, updated: 0, unchanged: 0, seenAgain: 0 });
    expect(await upsertRows(client, table, v0, { runId: 2 })).toEqual({ inserted: 0, updated: 0, unchanged: 3, seenAgain: 0 });
    const v1 = [sampleRow(table, 1, 1), v0[1]!];
    expect(await upsertRows(client, table, v1, { runId: 3 })).toEqual({ inserted: 0, updated: 1, unchanged: 1, seenAgain: 0 });

    // Scope on the first key column; with a single key the scope is exactly the three rows.
    const first = meta.keyColumns[0]!;
    const scope = { [first]: [...new Set(v0.map((r) => r[first] as number | string))] };
    expect(await markMissingDeleted(client, table, scope, v1, { runId: 4 })).toBe(1);
    const { rows } = await client.query(`SELECT count(*)::int AS n, count(_deleted_at)::int AS deleted FROM ${meta.qualifiedName}`);
    expect(rows).toEqual([{ n: 3, deleted: 1 }]);
  });
});
