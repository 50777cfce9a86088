import type { TestProject } from 'vitest/node';

import { migrateDatabase } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { adminUrlFor, withDatabase } from '../helpers/db-url.js';

/**
 * Once per test run: find a real Postgres, create one migrated template database, and hand its
 * name to the test files, which clone it (CREATE DATABASE ... TEMPLATE) for a fresh, isolated
 * database each. Cloning a template is far faster than migrating per file.
 *
 * Where Postgres comes from: TEST_DATABASE_URL or DATABASE_URL when set; otherwise a
 * testcontainers PostgreSQL when a container runtime answers; otherwise the run fails with the
 * command that starts a local one.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

const START_HINT =
  'No PostgreSQL for the tests. Set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres), ' +
  'or start a local server: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start, ' +
  'or run a container runtime for testcontainers.';

async function startContainer(): Promise<{ url: string; stop: () => Promise<void> } | null> {
  try {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15-alpine').start();
    return { url: container.getConnectionUri(), stop: async () => void (await container.stop()) };
  } catch {
    return null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let stopContainer: (() => Promise<void>) | undefined;
  let url = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) {
    const started = await startContainer();
    if (!started) throw new Error(START_HINT);
    url = started.url;
    stopContainer = started.stop;
  }
  const adminUrl = adminUrlFor(url);
  const template = `pitwall_template_${process.pid}`;
  const admin = createPool(adminUrl, { max: 1 });
  try {
    await admin.query('SELECT 1');
  } catch (err) {
    await admin.end();
    throw new Error(`${START_HINT} (${(err as Error).message})`);
  }
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const templatePool = createPool(withDatabase(adminUrl, template), { max: 2 });
  await migrateDatabase(templatePool);
  await templatePool.end();

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.end();
    await stopContainer?.();
  };
}
