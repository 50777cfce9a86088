import { describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useDatabase } from '../helpers/fixture.js';

const SCHEMAS = ['mrp', 'pitwall', 'analytics'];

describe.each(BACKENDS)('descriptions for BI tools (%s)', (backend) => {
  const db = useDatabase(backend);

  it('every table, view and column in mrp, pitwall and analytics carries a COMMENT', async () => {
    const { rows } = await db.pool.query(
      `SELECT n.nspname || '.' || c.relname AS missing
         FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'v', 'm', 'p') AND obj_description(c.oid, 'pg_class') IS NULL
       UNION ALL
       SELECT n.nspname || '.' || c.relname || '.' || a.attname
         FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
         JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'v', 'm', 'p') AND col_description(c.oid, a.attnum) IS NULL
        ORDER BY 1`,
      [SCHEMAS],
    );
    const { rows: counted } = await db.pool.query(
      `SELECT count(*)::int AS n FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'v')`,
      [SCHEMAS],
    );
    expect(counted[0].n).toBeGreaterThanOrEqual(18 + 3 + 6);
    expect(rows.map((r) => r.missing)).toEqual([]);
  });
});
