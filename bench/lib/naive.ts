import { getTableColumns, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';

import type { LoadRow } from '../../src/db/load/load-row.js';
import { results } from '../../src/db/schema/mrp.js';

/**
 * The loader a user would write by hand with Drizzle: one
 * `insert(results).values(row).onConflictDoUpdate(...)` per row, awaited in turn, each its own
 * statement (and so its own transaction), every column but the key overwritten from `excluded`.
 */
export async function naiveLoad(url: string, rows: readonly LoadRow[], runId: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'pitwall-bench-naive' });
  await client.connect();
  try {
    const db = drizzle(client);
    const columns = getTableColumns(results);
    const key = [results.source, results.event_id, results.class_id, results.race_number, results.row_index];
    const keyNames = new Set(key.map((c) => c.name));
    const set = Object.fromEntries(
      Object.entries(columns)
        .filter(([, c]) => !keyNames.has(c.name) && c.name !== '_first_seen_at')
        .map(([field, c]) => [field, sql.raw(`excluded."${c.name}"`)]),
    );
    for (const row of rows) {
      await db
        .insert(results)
        .values({ ...(row as typeof results.$inferInsert), _run_id: runId })
        .onConflictDoUpdate({ target: key, set });
    }
  } finally {
    await client.end();
  }
}
