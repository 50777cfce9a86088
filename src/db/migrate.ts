import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

import { dropCatalogKeys, reconcileCatalogKeys, type CatalogKeysResult } from './catalog-keys.js';

/** The migrations shipped with the package: `<root>/migrations`, from src/db or dist/db alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * Arbitrary but fixed advisory-lock key for schema migrations. drizzle's migrate() takes no lock
 * of its own, so replicas starting together would race to apply the same migration.
 */
export const MIGRATION_LOCK_KEY = 7_305_113_001;

/** What one call applied: how many migrations, and how long they took (the lock wait not counted). */
export interface MigrationResult {
  applied: number;
  ms: number;
  /** The foreign keys declared NOT ENFORCED after the migrations (src/db/catalog-keys.ts). */
  keys: CatalogKeysResult;
}

/** Migrations recorded in drizzle's bookkeeping table; 0 before the first. */
async function appliedCount(client: pg.PoolClient | pg.Pool): Promise<number> {
  const { rows: table } = await client.query<{ exists: boolean }>(`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS exists`);
  if (!table[0]?.exists) return 0;
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
  return rows[0]?.n ?? 0;
}

/** drizzle's journal of the shipped migrations: their tags, in order. */
export interface MigrationJournal {
  entries: { tag: string }[];
}

export const migrationJournal = (): MigrationJournal =>
  JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as MigrationJournal;

/** Migrations shipped with this pitwall: the journal's entries (reading them hashes every file). */
const shippedCount = (): number => migrationJournal().entries.length;

/**
 * Applies pending migrations, then reconciles the foreign keys that depend on the server's
 * version (src/db/catalog-keys.ts), while holding a session-level advisory lock on one dedicated
 * connection; a second process waits for the first and then finds nothing left to do.
 */
export async function migrateDatabase(pool: pg.Pool): Promise<MigrationResult> {
  return withMigrationLock(pool, async (client) => {
    const before = await appliedCount(client);
    const started = performance.now();
    if (before > 0 && before < shippedCount()) await dropCatalogKeys(client);
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    const applied = (await appliedCount(client)) - before;
    const ms = Math.round(performance.now() - started);
    return { applied, ms, keys: await reconcileCatalogKeys(client) };
  });
}

/**
 * Reconciles the foreign keys that depend on the server's version, with no migration pending: a
 * warehouse migrated on PostgreSQL 17 and since moved to 18 gets them at the next start.
 */
export async function reconcileKeys(pool: pg.Pool): Promise<CatalogKeysResult> {
  return withMigrationLock(pool, reconcileCatalogKeys);
}

async function withMigrationLock<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await fn(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** How far a warehouse's schema is from this pitwall's: migrations applied, and shipped but not applied. */
export interface MigrationStatus {
  applied: number;
  pending: number;
}

export async function migrationStatus(pool: pg.Pool): Promise<MigrationStatus> {
  const applied = await appliedCount(pool);
  return { applied, pending: Math.max(0, shippedCount() - applied) };
}
