import { fileURLToPath } from 'node:url';

import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

/** The migrations shipped with the package: `<root>/migrations`, from src/db or dist/db alike. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../migrations', import.meta.url));

/**
 * Arbitrary but fixed advisory-lock key for schema migrations. drizzle's migrate() takes no lock
 * of its own, so replicas starting together would race to apply the same migration.
 */
export const MIGRATION_LOCK_KEY = 7_305_113_001;

/**
 * Applies pending migrations while holding a session-level advisory lock on one dedicated
 * connection; a second process waits for the first and then finds nothing left to do.
 */
export async function migrateDatabase(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
