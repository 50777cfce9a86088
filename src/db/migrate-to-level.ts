import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

import { MIGRATIONS_FOLDER, migrateDatabase, migrationJournal, type MigrationResult } from './migrate.js';

/**
 * Applies the first `level` of the shipped migrations to an empty database, and no more: the
 * schema an earlier pitwall left in a warehouse that still has migrations pending, so that its
 * rows can be copied in as they are, and `pitwall migrate` then moves them on exactly as it would
 * have moved them in the old warehouse. At the full level it is migrateDatabase, as `pitwall migrate`
 * runs it, and returns what that did (the catalog keys too); below it, null.
 */
export async function migrateToLevel(pool: pg.Pool, level: number): Promise<MigrationResult | null> {
  const journal = migrationJournal();
  if (level >= journal.entries.length) return migrateDatabase(pool);
  if (level === 0) return null;
  // drizzle reads a folder's journal and applies all it lists: a folder listing the first `level`.
  const folder = mkdtempSync(join(tmpdir(), 'pitwall-migrations-'));
  try {
    mkdirSync(join(folder, 'meta'));
    const entries = journal.entries.slice(0, level);
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const { tag } of entries) cpSync(join(MIGRATIONS_FOLDER, `${tag}.sql`), join(folder, `${tag}.sql`));
    await migrate(drizzle(pool), { migrationsFolder: folder });
    return null;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
