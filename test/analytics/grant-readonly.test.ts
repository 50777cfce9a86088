import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { grantReadOnly, RoleError } from '../../src/analytics/grant-readonly.js';
import { createPool } from '../../src/db/pool.js';
import { useDatabase } from '../helpers/fixture.js';

describe('a role given grant-readonly', () => {
  const db = useDatabase();
  let admin: pg.Pool;
  const role = `pitwall_reader_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    admin = createPool(db.url, { max: 1 });
    await admin.query(`CREATE ROLE ${role} NOLOGIN`);
    // Too much first, to see the grant take it back.
    await admin.query(`GRANT ALL ON SCHEMA pitwall TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA pitwall, mrp TO ${role}`);
    await grantReadOnly(db.pool, role);
  });
  afterAll(async () => {
    await admin?.query(`DROP OWNED BY ${role}; DROP ROLE IF EXISTS ${role}`);
    await admin?.end();
  });

  /** Runs `sql` with the role's privileges (SET ROLE), and the SQLSTATE it failed with, if any. */
  async function as(sql: string): Promise<string | undefined> {
    const client = await admin.connect();
    try {
      await client.query(`SET ROLE ${role}`);
      await client.query(sql);
      return undefined;
    } catch (err) {
      return (err as { code?: string }).code;
    } finally {
      await client.query('RESET ROLE').catch(() => undefined);
      client.release();
    }
  }

  it('reads every mrp table and analytics view', async () => {
    for (const sql of ['SELECT * FROM mrp.results LIMIT 1', 'SELECT * FROM mrp.point_standings LIMIT 1', 'SELECT * FROM analytics.event_results LIMIT 1', 'SELECT * FROM analytics.standings_history LIMIT 1']) {
      expect({ sql, code: await as(sql) }).toEqual({ sql, code: undefined });
    }
  });

  it('reads the sources\' freshness, and pitwall\'s runs and scopes\' state: every schema it sees is one it may use', async () => {
    for (const sql of ['SELECT * FROM analytics.source_freshness', 'SELECT * FROM pitwall.sync_runs LIMIT 1', 'SELECT * FROM pitwall.sync_state LIMIT 1', `SELECT 'pitwall.rejects'::regclass`]) {
      expect({ sql, code: await as(sql) }).toEqual({ sql, code: undefined });
    }
  });

  it('cannot write, create, or read what pitwall keeps of the upstream\'s payloads', async () => {
    for (const sql of [
      `INSERT INTO mrp.classes (class_id, raw, _run_id) VALUES (1, '{}', 1)`,
      'UPDATE mrp.drivers SET first_name = first_name',
      'DELETE FROM mrp.results',
      'TRUNCATE mrp.events',
      'CREATE TABLE mrp.mine (x int)',
      'CREATE VIEW analytics.mine AS SELECT 1',
      'DELETE FROM pitwall.sync_runs',
      'SELECT * FROM pitwall.rejects',
      'SELECT * FROM pitwall.responses',
    ]) {
      expect({ sql, code: await as(sql) }).toEqual({ sql, code: '42501' });
    }
  });

  it('refuses a role that does not exist, naming it', async () => {
    await expect(grantReadOnly(db.pool, `${role}_nobody`)).rejects.toThrow(RoleError);
  });
});
