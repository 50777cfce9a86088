import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { createPool } from '../../src/db/pool.js';

/**
 * The databases a test run makes on a server outside its directory (TEST_DATABASE_URL, a
 * container): its migrated template and one per test file, each named with the run's prefix.
 * The run's teardown drops them; a run stopped before its teardown leaves them to its watchdog
 * (test/setup/run-watchdog.ts), which reads where they are from the run's directory.
 */
export interface RunDatabases {
  /** The server's `postgres` database, where CREATE and DROP DATABASE are issued. */
  adminUrl: string;
  /** How the names of the run's test databases begin. */
  prefix: string;
  template: string;
}

const RECORD = 'run-databases.json';

/** Mode 0600: the URL may carry a password, and the run's directory is open to the server's user. */
export function recordRunDatabases(runDir: string, databases: RunDatabases): void {
  writeFileSync(join(runDir, RECORD), JSON.stringify(databases), { mode: 0o600 });
}

export function readRunDatabases(runDir: string): RunDatabases | undefined {
  try {
    return JSON.parse(readFileSync(join(runDir, RECORD), 'utf8')) as RunDatabases;
  } catch {
    return undefined;
  }
}

/** Drops every database the run made that is still there: those a failed file left, and the template. */
export async function dropRunDatabases({ adminUrl, prefix, template }: RunDatabases): Promise<void> {
  const admin = createPool(adminUrl, { max: 1 });
  try {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix]);
    for (const { datname } of [...rows, { datname: template }]) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
