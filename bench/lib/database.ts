import { randomBytes } from 'node:crypto';

import type pg from 'pg';

import { migrateDatabase } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The server to benchmark on: DATABASE_URL, else TEST_DATABASE_URL, else the local default. */
export function serverUrl(env: Readonly<Record<string, string | undefined>>): string {
  return env.DATABASE_URL || env.TEST_DATABASE_URL || DEFAULT_SERVER_URL;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface BenchDatabase {
  url: string;
  pool: pg.Pool;
  /** Closes the pool and drops the database. Safe to call twice. */
  drop(): Promise<void>;
}

async function onAdmin(server: string, sql: string): Promise<void> {
  const admin = createPool(withDatabase(server, 'postgres'), { max: 1, applicationName: 'pitwall-bench' });
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** A fresh database on `server`, migrated the way `pitwall migrate` does it. */
export async function createBenchDatabase(server: string, label: string, poolMax = 10): Promise<BenchDatabase> {
  const name = `pitwall_bench_${label}_${randomBytes(4).toString('hex')}`;
  await onAdmin(server, `CREATE DATABASE ${name}`);
  const url = withDatabase(server, name);
  const pool = createPool(url, { max: poolMax, applicationName: 'pitwall-bench' });
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    await pool.end();
    await onAdmin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  try {
    await migrateDatabase(pool);
  } catch (err) {
    await drop();
    throw err;
  }
  return { url, pool, drop };
}
