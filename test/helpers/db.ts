import { randomBytes } from 'node:crypto';

import type pg from 'pg';
import { inject } from 'vitest';

import { createPool } from '../../src/db/pool.js';

import { withDatabase } from './db-url.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  /** Drops the database (and closes the pool). Safe to call twice. */
  drop: () => Promise<void>;
}

/**
 * A fresh database cloned from the run's migrated template: every table exists and is empty.
 * Call it in beforeAll (or per test, it is cheap) and `drop()` in afterAll.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  const name = `pitwall_test_${randomBytes(6).toString('hex')}`;
  const admin = createPool(adminUrl, { max: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = createPool(url, { max: 8 });
  let dropped = false;
  return {
    url,
    pool,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await pool.end();
      const a = createPool(adminUrl, { max: 1 });
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
