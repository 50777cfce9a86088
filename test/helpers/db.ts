import { randomBytes } from 'node:crypto';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import type pg from 'pg';
import { inject } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { openWarehouse, type WarehouseKind } from '../../src/db/open-warehouse.js';
import { createPool } from '../../src/db/pool.js';
import { createSilentLogger } from '../../src/log.js';

import { withDatabase } from './db-url.js';
import { warehouseTempDir } from './temp-dir.js';

/** Both warehouses pitwall runs on: a PostgreSQL server it is given, and the embedded one it runs. */
export const BACKENDS: readonly WarehouseKind[] = ['postgres', 'embedded'];

export interface TestDatabase {
  kind: WarehouseKind;
  url: string;
  pool: pg.Pool;
  /** The embedded warehouse's directory; undefined for PostgreSQL. */
  dir?: string;
  /** Drops the database (and closes the pool). Safe to call twice. */
  drop: () => Promise<void>;
}

/**
 * A fresh database cloned from the run's migrated template: every table exists and is empty.
 * Tests take it through useDatabase or useWarehouse (./fixture.ts), which drop it. `embedded`
 * gives an embedded warehouse instead, opened the way pitwall opens it, in a copy of a migrated one.
 */
export async function createTestDatabase(kind: WarehouseKind = 'postgres'): Promise<TestDatabase> {
  if (kind === 'embedded') return createEmbeddedDatabase();
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  const name = `${inject('pgDatabasePrefix')}${randomBytes(6).toString('hex')}`;
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
    kind,
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

/** A fresh embedded warehouse directory: a copy of the run's migrated one, its server stopped. */
export function copyEmbeddedTemplate(): string {
  const dir = warehouseTempDir('pitwall-embedded-test');
  // The remembered port stays behind: each copy's server finds a free port of its own.
  const template = inject('embeddedTemplateDir');
  for (const entry of ['postgres', 'password']) cpSync(join(template, entry), join(dir, entry), { recursive: true, preserveTimestamps: true });
  return dir;
}

async function createEmbeddedDatabase(): Promise<TestDatabase> {
  const dir = copyEmbeddedTemplate();
  const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'test' });
  let dropped = false;
  return {
    kind: 'embedded',
    url: warehouse.url,
    dir,
    pool: warehouse.pool,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await warehouse.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
