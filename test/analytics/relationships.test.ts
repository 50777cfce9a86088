import { beforeAll, describe, expect, it } from 'vitest';

import { RELATIONSHIPS } from '../../src/analytics/relationships.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

const SCHEMA_OF: Record<string, string> = { sync_runs: 'pitwall', sync_state: 'pitwall', rejects: 'pitwall', point_standings_history: 'analytics' };
const qualified = (table: string) => `${SCHEMA_OF[table] ?? 'mrp'}.${table}`;
const live = (table: string, alias: string) => (SCHEMA_OF[table] ? 'true' : `${alias}._deleted_at IS NULL`);

describe('the join map drawn in the ER diagram', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 6 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  it.each(RELATIONSHIPS.map((r) => [`${r.child} -> ${r.parent}`, r] as const))('%s: every live child row finds its parent', async (_name, r) => {
    const joined = r.on.map(([c, p]) => `p.${p} = c.${c}`).join(' AND ');
    const present = r.on.map(([c]) => `c.${c} IS NOT NULL`).join(' AND ');
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS children,
              count(*) FILTER (WHERE NOT EXISTS (SELECT FROM ${qualified(r.parent)} AS p WHERE ${joined}))::int AS orphans
         FROM ${qualified(r.child)} AS c WHERE ${live(r.child, 'c')} AND ${present}`,
    );
    // A clean sync rejects nothing, so that one join has no rows to check here.
    if (r.child !== 'rejects') expect(rows[0].children).toBeGreaterThan(0);
    expect(rows[0].orphans).toBe(0);
  });
});
