
import type pg from 'pg';
import { describe, expect, it } from 'vitest';

import { NOT_ENFORCED_SINCE, RELATIONSHIPS, constraintName, holdsWhen, qualifiedTable } from '../../src/analytics/relationships.js';
import { loadConfig } from '../../src/config.js';
import { logCatalogKeys, reconcileCatalogKeys, serverVersionNum } from '../../src/db/catalog-keys.js';
import { migrateToLevel } from '../../src/db/migrate-to-level.js';
import { migrateDatabase, migrationJournal, migrationStatus } from '../../src/db/migrate.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger, createSilentLogger } from '../../src/log.js';
import { withDatabase } from '../helpers/db-url.js';
import { BACKENDS } from '../helpers/db.js';
import { useDatabase } from '../helpers/fixture.js';

const notEnforced = RELATIONSHIPS.filter((r) => r.enforced !== true);

async function notEnforcedKeys(pool: pg.Pool): Promise<Array<{ name: string; comment: string | null }>> {
  const { rows } = await pool.query<{ name: string; comment: string | null }>(
    `SELECT conname AS name, obj_description(oid, 'pg_constraint') AS comment FROM pg_constraint
      WHERE contype = 'f' AND NOT conenforced AND connamespace::regnamespace::text IN ('mrp', 'pitwall', 'analytics') ORDER BY 1`,
  );
  return rows;
}

const expectedKeys = () => notEnforced.map((r) => ({ name: constraintName(r), comment: holdsWhen(r) })).sort((a, b) => (a.name < b.name ? -1 : 1));

describe('what a reconciliation logs', () => {
  it('counts at info and names at debug, so a first start does not print 20 names', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    const added = notEnforced.map(constraintName);
    logCatalogKeys(logger, { serverVersionNum: NOT_ENFORCED_SINCE, added, commented: [], dropped: ['old_key'], failed: [] });
    const info = lines.filter((l) => l.level === 30);
    expect(info).toEqual([expect.objectContaining({ declared: added.length, commented: 0, dropped: 1 })]);
    expect(JSON.stringify(info)).not.toContain(added[0]);
    expect(lines.filter((l) => l.level === 20)).toEqual([expect.objectContaining({ added, commented: [], dropped: ['old_key'] })]);
  });
});

describe('foreign keys NOT ENFORCED, reconciled on PostgreSQL 18 (embedded)', () => {
  const db = useDatabase('embedded');

  it("a warehouse migrated without them (on 17, then upgraded) gets every one at the worker's start", async () => {
    for (const r of notEnforced) await db.pool.query(`ALTER TABLE ${qualifiedTable(r.child)} DROP CONSTRAINT ${constraintName(r)}`);
    expect(await notEnforcedKeys(db.pool)).toEqual([]);
    const worker = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: db.dir! }), createSilentLogger(), { purpose: 'test', pending: 'apply', poolMax: 2 });
    await worker.close();
    expect(await notEnforcedKeys(db.pool)).toEqual(expectedKeys());
  });

  it("follows the list: a stale key of pitwall's dropped, a changed one declared anew, a comment set again; a user's key kept", async () => {
    await db.pool.query(`ALTER TABLE mrp.results ADD CONSTRAINT results_events_fk FOREIGN KEY (event_id, source) REFERENCES mrp.events (event_id, source) NOT ENFORCED`);
    await db.pool.query(`ALTER TABLE mrp.results ADD CONSTRAINT analyst_results_events FOREIGN KEY (event_id, source) REFERENCES mrp.events (event_id, source) NOT ENFORCED`);
    await db.pool.query(`ALTER TABLE mrp.results DROP CONSTRAINT results_races_fk`);
    await db.pool.query(`ALTER TABLE mrp.results ADD CONSTRAINT results_races_fk FOREIGN KEY (driver_id, source) REFERENCES mrp.drivers (driver_id, source) NOT ENFORCED`);
    await db.pool.query(`COMMENT ON CONSTRAINT lineups_drivers_fk ON mrp.lineups IS 'stale'`);

    const client = await db.pool.connect();
    try {
      const result = await reconcileCatalogKeys(client);
      expect({ added: result.added, commented: result.commented, dropped: result.dropped, failed: result.failed }).toEqual({
        added: ['results_races_fk'],
        commented: ['lineups_drivers_fk'],
        dropped: ['results_events_fk'],
        failed: [],
      });
    } finally {
      client.release();
    }
    const keys = await notEnforcedKeys(db.pool);
    expect(keys.filter((k) => k.name !== 'analyst_results_events')).toEqual(expectedKeys());
    expect(keys.map((k) => k.name)).toContain('analyst_results_events');
  });

  it('survives a pending migration that rebuilds the primary keys they reference (0019), and declares them again after it', async () => {
    // A warehouse at migration 0018 with the keys, in a database of its own on the same server.
    const name = 'pitwall_at_0018';
    await db.pool.query(`CREATE DATABASE ${name}`);
    const pool = createPool(withDatabase(db.url, name), { max: 2 });
    try {
      const { entries } = migrationJournal();
      const upTo = entries.findIndex((e) => e.tag.startsWith('0019_'));
      // The level an earlier pitwall left (upgrade-warehouse builds a cluster to it the same way).
      expect(await migrateToLevel(pool, upTo)).toBeNull();
      expect(await migrationStatus(pool)).toEqual({ applied: upTo, pending: entries.length - upTo });
      const client = await pool.connect();
      try {
        // All but sync_state's, which is still 0016's enforced key there (0019 drops it).
        const declared = await reconcileCatalogKeys(client);
        expect(declared.added).toEqual(notEnforced.map(constraintName).filter((n) => n !== 'sync_state_sync_runs_fk'));
      } finally {
        client.release();
      }

      const result = await migrateDatabase(pool);
      expect(result.applied).toBe(entries.length - upTo);
      expect(result.keys.added).toHaveLength(notEnforced.length);
      expect(await notEnforcedKeys(pool)).toEqual(expectedKeys());
    } finally {
      await pool.end();
      await db.pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});

describe.each(BACKENDS)('reconciling when nothing differs (%s)', (backend) => {
  const db = useDatabase(backend);

  it('changes nothing and reads the catalog once at most (not at all before PostgreSQL 18)', async () => {
    const client = await db.pool.connect();
    try {
      const version = await serverVersionNum(client);
      let queries = 0;
      const counted = new Proxy(client, {
        get: (target, prop, receiver) => (prop === 'query' ? (...args: unknown[]) => (queries++, (target.query as (...a: unknown[]) => unknown)(...args)) : Reflect.get(target, prop, receiver)),
      });
      const result = await reconcileCatalogKeys(counted);
      expect({ added: result.added, commented: result.commented, dropped: result.dropped, failed: result.failed }).toEqual({ added: [], commented: [], dropped: [], failed: [] });
      // One query for the server's version, and from 18 one of the catalog.
      expect(queries).toBe(version >= NOT_ENFORCED_SINCE ? 2 : 1);
    } finally {
      client.release();
    }
  });
});
