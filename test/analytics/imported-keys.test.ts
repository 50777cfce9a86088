import { describe, expect, it } from 'vitest';

import { NOT_ENFORCED_SINCE, RELATIONSHIPS, declaredAs } from '../../src/analytics/relationships.js';
import { serverVersionNum } from '../../src/db/catalog-keys.js';
import { BACKENDS } from '../helpers/db.js';
import { useDatabase } from '../helpers/fixture.js';
import { byJoin, expectedImportedKeys, jdbcImportedKeys, joinOf, warehouseTables } from '../helpers/imported-keys.js';

describe.each(BACKENDS)('what a JDBC BI tool reads of the joins (%s)', (backend) => {
  const db = useDatabase(backend);

  it("getImportedKeys gives, over every table, each join declared on the server: its columns in order, the parent's primary key, and nothing else", async () => {
    const version = await serverVersionNum(db.pool);
    // The embedded warehouse runs 18: there every join must be a key.
    if (backend === 'embedded') expect(version).toBeGreaterThanOrEqual(NOT_ENFORCED_SINCE);
    const rows = [];
    for (const { schema, table } of await warehouseTables(db.pool)) rows.push(...(await jdbcImportedKeys(db.pool, schema, table)));

    expect(rows.map(joinOf).sort(byJoin)).toEqual(expectedImportedKeys(version));
    expect(new Set(rows.map((r) => r.fk_name)).size).toBe(RELATIONSHIPS.filter((r) => declaredAs(r, version) !== 'none').length);
    // No action on update or delete (3), as declared; the parent side is the parent's primary key.
    expect(new Set(rows.flatMap((r) => [r.update_rule, r.delete_rule]))).toEqual(new Set([3]));
    const { rows: primary } = await db.pool.query<{ table: string; index: string }>(
      `SELECT c.relname AS table, i.indexrelid::regclass::text AS index FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indrelid
        WHERE i.indisprimary AND c.relnamespace::regnamespace::text IN ('mrp', 'pitwall', 'analytics')`,
    );
    const primaryOf = new Map(primary.map((p) => [p.table, p.index.replace(/^\w+\./, '')]));
    for (const r of rows) expect(r.pk_name, r.fk_name).toBe(primaryOf.get(r.pktable_name));
  });
});
