import { beforeAll, describe, expect, it } from 'vitest';

import { RELATIONSHIPS, constraintName, keyPairs, qualifiedTable } from '../../src/analytics/relationships.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

const live = (table: string, alias: string) => (qualifiedTable(table).startsWith('mrp.') ? `${alias}._deleted_at IS NULL` : 'true');

describe('the join map drawn in the ER diagram', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 6 });
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

  it('declares a deferrable foreign key for exactly the joins marked enforced, each validated', async () => {
    const { rows } = await db.pool.query<{ name: string; child: string; parent: string; columns: string[]; refs: string[]; deferred: boolean; valid: boolean }>(
      `SELECT c.conname AS name, c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS refs,
              c.condeferrable AND c.condeferred AS deferred, c.convalidated AS valid
         FROM pg_constraint AS c JOIN pg_namespace AS n ON n.oid = c.connamespace
        WHERE c.contype = 'f' AND n.nspname IN ('mrp', 'pitwall', 'analytics')
        ORDER BY 1`,
    );
    const expected = RELATIONSHIPS.filter((r) => r.enforced === true)
      .map((r) => ({
        name: constraintName(r),
        child: qualifiedTable(r.child),
        parent: qualifiedTable(r.parent),
        columns: keyPairs(r).map(([c]) => c),
        refs: keyPairs(r).map(([, p]) => p),
        deferred: true,
        valid: true,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(rows).toEqual(expected);
    // Every join left without one says why, for docs/warehouse.md.
    for (const r of RELATIONSHIPS) if (r.enforced !== true) expect(r.enforced.length).toBeGreaterThan(20);
  });
});
