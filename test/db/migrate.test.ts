import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { migrateDatabase } from '../../src/db/migrate.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';
import { useDatabase } from '../helpers/fixture.js';

describe('migrations', () => {
  const db = useDatabase();

  it('create every warehouse and operations table', async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
        WHERE table_schema IN ('mrp', 'pitwall') ORDER BY 1`,
    );
    const names = rows.map((r) => r.name);
    expect(names).toContain('mrp.results');
    expect(names).toContain('mrp.point_standings');
    expect(names).toContain('pitwall.sync_state');
    // Exactly the tables the schema declares, so a new endpoint's table needs no count changed here.
    expect(names.filter((n) => n.startsWith('mrp.')).sort()).toEqual(Object.keys(warehouseTables).map((t) => `mrp.${t}`).sort());
  });

  it('can run concurrently from several processes without failing', async () => {
    // Already migrated from the template: concurrent runs must wait on the lock and no-op.
    const results = await Promise.all([migrateDatabase(db.pool), migrateDatabase(db.pool), migrateDatabase(db.pool)]);
    expect(results.map((r) => r.applied)).toEqual([0, 0, 0]);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    const journal = JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };
    expect(rows[0].n).toBe(journal.entries.length);
  });

  it('says how many migrations it applied to an empty database, and how long they took', async () => {
    await db.pool.query('DROP SCHEMA mrp, pitwall, analytics, drizzle CASCADE');
    const journal = JSON.parse(readFileSync(new URL('../../migrations/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };
    const result = await migrateDatabase(db.pool);
    expect(result.applied).toBe(journal.entries.length);
    expect(result.ms).toBeGreaterThan(0);
  });
});
