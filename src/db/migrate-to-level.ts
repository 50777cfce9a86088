import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

import { MIGRATIONS_FOLDER, migrateDatabase } from './migrate.js';

interface Journal {
  entries: { tag: string }[];
}

/**
 * Applies the first `level` of the shipped migrations to an empty database, and no more: the
 * schema an earlier pitwall left in a warehouse that still has migrations pending, so that its
 * rows can be copied in as they are, and `pitwall migrate` then moves them on exactly as it would
 * have moved them in the old warehouse. At the full level it is migrateDatabase, as `pitwall migrate` runs it.
 */
export async function migrateToLevel(pool: pg.Pool, level: number): Promise<void> {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as Journal;
  if (level >= journal.entries.length) {
    await migrateDatabase(pool);
    return;
  }
  if (level === 0) return;
  // drizzle reads a folder's journal and applies all it lists: a folder listing the first `level`.
  const folder = mkdtempSync(join(tmpdir(), 'pitwall-migrations-'));
  try {
    mkdirSync(join(folder, 'meta'));
    const entries = journal.entries.slice(0, level);
    writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
    for (const { tag } of entries) cpSync(join(MIGRATIONS_FOLDER, `${tag}.sql`), join(folder, `${tag}.sql`));
    await migrate(drizzle(pool), { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
