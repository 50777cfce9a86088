import { beforeAll, describe, expect, it } from 'vitest';

import { NOT_ENFORCED_SINCE, RELATIONSHIPS, constraintName, declaredAs, holdsWhen, keyPairs, qualifiedTable } from '../../src/analytics/relationships.js';
import { serverVersionNum } from '../../src/db/catalog-keys.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

const live = (table: string, alias: string) => (qualifiedTable(table).startsWith('mrp.') ? `${alias}._deleted_at IS NULL` : 'true');

describe.each(BACKENDS)('the join map drawn in the ER diagram (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 6 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  it.each(RELATIONSHIPS.map((r) => [`${r.child} -> ${r.parent}`, r] as const))('%s: every live child row finds its parent', async (_name, r) => {
    const joined = keyPairs(r).map(([c, p]) => `p.${p} = c.${c}`).join(' AND ');
    const present = r.on.map(([c]) => `c.${c} IS NOT NULL`).join(' AND ');
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS children,
              count(*) FILTER (WHERE NOT EXISTS (SELECT FROM ${qualifiedTable(r.parent)} AS p WHERE ${joined}))::int AS orphans
         FROM ${qualifiedTable(r.child)} AS c WHERE ${live(r.child, 'c')} AND ${present}`,
    );
    // A clean sync rejects nothing, so that one join has no rows to check here.
    if (r.child !== 'rejects') expect(rows[0].children).toBeGreaterThan(0);
    expect(rows[0].orphans).toBe(0);
  });

  it('declares exactly the joins the server can: enforced and deferrable where marked so, and from PostgreSQL 18 every other one NOT ENFORCED, saying when it holds', async () => {
    const version = await serverVersionNum(db.pool);
    if (backend === 'embedded') expect(version).toBeGreaterThanOrEqual(NOT_ENFORCED_SINCE);
    const { rows } = await db.pool.query<{ name: string; child: string; parent: string; columns: string[]; refs: string[]; enforced: boolean; deferred: boolean; valid: boolean; comment: string | null }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS refs,
              ${version >= NOT_ENFORCED_SINCE ? 'c.conenforced' : 'true'} AS enforced,
              c.condeferrable AND c.condeferred AS deferred, c.convalidated AS valid, obj_description(c.oid, 'pg_constraint') AS comment
         FROM pg_constraint AS c JOIN pg_namespace AS n ON n.oid = c.connamespace
        WHERE c.contype = 'f' AND n.nspname IN ('mrp', 'pitwall', 'analytics')
        ORDER BY 1`,
    );
    const expected = RELATIONSHIPS.filter((r) => declaredAs(r, version) !== 'none')
      .map((r) => {
        const enforced = declaredAs(r, version) === 'enforced';
        return {
          name: constraintName(r),
          child: qualifiedTable(r.child),
          parent: qualifiedTable(r.parent),
          columns: keyPairs(r).map(([c]) => c),
          refs: keyPairs(r).map(([, p]) => p),
          enforced,
          // A NOT ENFORCED key has nothing to defer or validate: PostgreSQL marks it not valid.
          deferred: enforced,
          valid: enforced,
          comment: enforced ? null : holdsWhen(r),
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(rows).toEqual(expected);
    // Every join not enforced says why, for docs/warehouse.md and its key's comment; every enforced one holds always.
    for (const r of RELATIONSHIPS) if (r.enforced !== true) expect(r.enforced.length).toBeGreaterThan(20);
    expect(RELATIONSHIPS.filter((r) => r.enforced === true && r.holds !== 'always')).toEqual([]);
  });
});
