import type pg from 'pg';

import { migrateToLevel } from '../../src/db/migrate-to-level.js';
import { migrateDatabase, migrationJournal } from '../../src/db/migrate.js';
import { createPool } from '../../src/db/pool.js';
import { PREVIOUS_MAJOR, previousPackageRoot } from '../../src/embedded/binaries.js';
import { ensureReaderRole } from '../../src/embedded/reader-role.js';
import { openEmbeddedServer } from '../../src/embedded/server.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { syncOnce } from '../helpers/sync.js';
import { warehouseChecksums, type Checksums } from '../reliability/helpers/checksums.js';

/** What a warehouse held, to compare after it moved: the mirrored tables, pitwall's own state, and how it was reached. */
export interface WarehouseState {
  checksums: Checksums;
  /** md5 of each pitwall.* table's rows as text, in order (sync state, runs, kept bodies, ...). */
  pitwall: Record<string, string>;
  lastRunId: number;
  port: number;
}

/**
 * A warehouse really made by the previous release's PostgreSQL: the same embedded code run with
 * the previous major version's binaries (the npm alias), migrated as `pitwall migrate` does,
 * with its read-only role, and one full sync of the simulator. Its server is stopped when this
 * returns.
 */
export async function makePreviousWarehouse(dir: string, sim: RunningSimulator): Promise<WarehouseState> {
  const server = await openEmbeddedServer({ dir, purpose: `PostgreSQL ${PREVIOUS_MAJOR} for the test`, binaries: { packageRoot: previousPackageRoot() } });
  const pool = createPool(server.url, { max: 4 });
  try {
    const { rows } = await pool.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    if (Math.floor(Number(rows[0]?.v) / 10_000) !== PREVIOUS_MAJOR) throw new Error(`expected PostgreSQL ${PREVIOUS_MAJOR}, got ${rows[0]?.v}`);
    await migrateDatabase(pool);
    await ensureReaderRole(pool, server.dir);
    const summary = await syncOnce({ pool, url: server.url }, sim);
    if (summary.status !== 'succeeded') throw new Error(`the sync into PostgreSQL ${PREVIOUS_MAJOR} ended ${summary.status}: ${summary.error}`);
    return { ...(await warehouseState(pool)), port: server.port };
  } finally {
    await pool.end();
    await server.close();
  }
}

export async function warehouseState(pool: pg.Pool): Promise<Omit<WarehouseState, 'port'>> {
  const client = await pool.connect();
  try {
    // Timestamps print in the session's zone: the same on both servers.
    await client.query("SET TimeZone = 'UTC'");
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = 'pitwall' ORDER BY 1",
    );
    const pitwall: Record<string, string> = {};
    for (const { name } of tables) {
      const { rows } = await client.query<{ md5: string | null }>(`SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) AS md5 FROM ${name} AS t`);
      pitwall[name] = rows[0]?.md5 ?? 'empty';
    }
    const { rows: runs } = await client.query<{ n: number }>('SELECT coalesce(max(run_id), 0)::int AS n FROM pitwall.sync_runs');
    return { checksums: await warehouseChecksums(pool), pitwall, lastRunId: runs[0]?.n ?? 0 };
  } finally {
    client.release();
  }
}

/**
 * A warehouse the previous release's PostgreSQL made under an earlier pitwall: its last `pending`
 * migrations never applied, and one run recorded. Its server is stopped when this returns.
 */
export async function makePreviousWarehouseBehind(dir: string, pending: number): Promise<void> {
  const server = await openEmbeddedServer({ dir, purpose: `PostgreSQL ${PREVIOUS_MAJOR} for the test`, binaries: { packageRoot: previousPackageRoot() } });
  const pool = createPool(server.url, { max: 2 });
  try {
    await migrateToLevel(pool, migrationJournal().entries.length - pending);
    await pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status) VALUES ('full', 'manual', 'succeeded')`);
  } finally {
    await pool.end();
    await server.close();
  }
}
