import { rmSync } from 'node:fs';

import type { TestProject } from 'vitest/node';

import { migrateDatabase } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { openEmbeddedServer } from '../../src/embedded/server.js';
import { adminUrlFor, withDatabase } from '../helpers/db-url.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { dropRunDatabases, recordRunDatabases, type RunDatabases } from './run-databases.js';

/**
 * Once per test run: find a real PostgreSQL, create one migrated template database, and hand its
 * name to the test files, which clone it (CREATE DATABASE ... TEMPLATE) for a fresh, isolated
 * database each. Cloning a template is far faster than migrating per file.
 *
 * Where PostgreSQL comes from, in order: TEST_DATABASE_URL; a testcontainers PostgreSQL when a
 * container runtime answers; otherwise a server this setup starts itself in a temporary
 * directory, from the same binaries as the embedded warehouse, and removes afterwards. Never
 * DATABASE_URL: it may name someone's production warehouse, and the tests create and drop
 * databases.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    /** Where the server came from, for tests that say so. */
    pgSource: 'TEST_DATABASE_URL' | 'container' | 'embedded';
    pgTemplate: string;
    /** How the names of this run's databases begin: the teardown drops any a failed file left. */
    pgDatabasePrefix: string;
  }
}

interface Server {
  url: string;
  source: 'TEST_DATABASE_URL' | 'container' | 'embedded';
  stop?: () => Promise<void>;
}

async function startContainer(): Promise<Server | null> {
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15-alpine').start();
    return { url: container.getConnectionUri(), source: 'container', stop: async () => void (await container.stop()) };
  } catch {
    // No container runtime (it answers within a second or two when there is none).
    return null;
  }
}

async function startEmbedded(): Promise<Server> {
  const dir = warehouseTempDir('pitwall-test-server');
  const server = await openEmbeddedServer({ dir, purpose: 'tests' });
  return {
    url: server.url,
    source: 'embedded',
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function findServer(): Promise<Server> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return { url, source: 'TEST_DATABASE_URL' };
  return (await startContainer()) ?? (await startEmbedded());
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await findServer();
  const adminUrl = adminUrlFor(server.url);
  const template = `pitwall_template_${process.pid}`;
  const admin = createPool(adminUrl, { max: 1 });
  try {
    await admin.query('SELECT 1');
  } catch (err) {
    await admin.end();
    await server.stop?.();
    throw new Error(`the tests' PostgreSQL (from ${server.source}) does not answer: ${(err as Error).message}`);
  }
  const databases: RunDatabases = { adminUrl, prefix: `pitwall_test_${process.pid}_`, template };
  // An embedded server lives in the run's directory and goes with it; another outlives the run.
  if (server.source !== 'embedded' && process.env.TMPDIR) recordRunDatabases(process.env.TMPDIR, databases);
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();
  const templatePool = createPool(withDatabase(adminUrl, template), { max: 2 });
  await migrateDatabase(templatePool);
  await templatePool.end();

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgSource', server.source);
  project.provide('pgTemplate', template);
  project.provide('pgDatabasePrefix', databases.prefix);

  return async () => {
    // The template, and the databases of files whose hooks failed before their closers ran.
    await dropRunDatabases(databases);
    await server.stop?.();
  };
}
