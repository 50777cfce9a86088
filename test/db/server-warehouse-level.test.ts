import { randomBytes } from 'node:crypto';

import { afterAll, describe, expect, inject, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { migrateToLevel } from '../../src/db/migrate-to-level.js';
import { migrationJournal, migrationStatus } from '../../src/db/migrate.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { createPool } from '../../src/db/pool.js';
import { createSilentLogger } from '../../src/log.js';
import { runCli } from '../helpers/cli.js';
import { withDatabase } from '../helpers/db-url.js';

/**
 * A database at DATABASE_URL that pitwall has not migrated, or that an earlier pitwall left
 * behind, is refused by every command but `migrate` and the worker in one line naming `pitwall
 * migrate`, as the embedded warehouse is (test/embedded/embedded-warehouse.test.ts); it was a
 * `relation "pitwall.sources" does not exist` with a stack trace.
 */
describe('a PostgreSQL warehouse behind this pitwall', () => {
  const admin = createPool(inject('pgAdminUrl'), { max: 1 });
  const names: string[] = [];
  const emptyDatabase = async () => {
    const name = `${inject('pgDatabasePrefix')}${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${name}`);
    names.push(name);
    return withDatabase(inject('pgAdminUrl'), name);
  };
  const pitwallSchemas = async (url: string) => {
    const pool = createPool(url, { max: 1 });
    try {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname IN ('mrp', 'pitwall', 'analytics')`);
      return rows[0]?.n;
    } finally {
      await pool.end();
    }
  };
  const env = (url: string) => ({ DATABASE_URL: url, MRP_API_KEY: 'never-sent', MRP_API_BASE_URL: 'http://127.0.0.1:9' });

  afterAll(async () => {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  it('is refused in one line when it holds no pitwall tables, and left as it was', async () => {
    const url = await emptyDatabase();
    for (const args of [['sync'], ['status'], ['sql', 'SELECT 1']]) {
      const r = await runCli(args, env(url));
      expect({ args, code: r.code, stderr: r.stderr.trim().split('\n') }).toEqual({
        args,
        code: 1,
        stderr: [expect.stringMatching(/^pitwall: cannot open the warehouse at postgres:\/\/.*: it holds no pitwall tables yet; run `pitwall migrate` \(or start `pitwall worker`\) to create them$/)],
      });
    }
    expect(await pitwallSchemas(url)).toBe(0);
  });

  it('is refused naming its pending migrations when an earlier pitwall migrated it; `migrate` mends it', async () => {
    const url = await emptyDatabase();
    const shipped = migrationJournal().entries.length;
    const pool = createPool(url, { max: 2 });
    try {
      await migrateToLevel(pool, shipped - 2);
    } finally {
      await pool.end();
    }
    const refused = await runCli(['sql', 'SELECT 1'], env(url));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('it was made by an earlier pitwall and 2 migrations are pending; run `pitwall migrate`');
    expect(await runCli(['migrate'], env(url))).toMatchObject({ code: 0 });
    expect(await runCli(['sql', '--csv', 'SELECT 1 AS one'], env(url))).toMatchObject({ code: 0, stdout: 'one\n1\n' });
  });

  it("is migrated at the worker's start (pending: apply)", async () => {
    const url = await emptyDatabase();
    const w = await openWarehouse(loadConfig({ DATABASE_URL: url }), createSilentLogger(), { pending: 'apply', poolMax: 2 });
    try {
      expect(await migrationStatus(w.pool)).toEqual({ applied: migrationJournal().entries.length, pending: 0 });
    } finally {
      await w.close();
    }
  });
});
