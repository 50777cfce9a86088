import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';

import { jobLockId, LOCK_NAMESPACE } from '../../coordination/lock-ids.js';
import { quoteIdent } from '../../db/load/table-meta.js';
import { pointStandingsHistory } from '../../db/schema/analytics.js';
import { SOURCE_COLUMN } from '../../db/schema/columns.js';
import { warehouseTables } from '../../db/schema/mrp.js';
import * as pitwallTables from '../../db/schema/pitwall.js';
import { withTransaction } from '../../db/transaction.js';
import { JOB_NAMES } from '../jobs.js';


/** What retiring a source did: rows per table (`mrp.events`, …), marked deleted or removed. */
export type RetireOutcome =
  | { done: true; rows: Record<string, number> }
  /** Another process holds one of the source's job locks: the run holding it, when one is recorded running. */
  | { done: false; running: { run_id: number; job: string; started_at: string } | null };

/** A table's name in the outcome (`mrp.events`), and quoted for SQL by the loader's checked quoteIdent. */
function names(table: PgTable): { shown: string; sql: string } {
  const { schema = 'public', name } = getTableConfig(table);
  return { shown: `${schema}.${name}`, sql: `${quoteIdent(schema)}.${quoteIdent(name)}` };
}

/** Every table of schema pitwall with a `source` column (runs, scopes, bodies, pace, …): read from the schema, so a new one is not forgotten. */
const PITWALL_TABLES: readonly PgTable[] = (Object.values(pitwallTables) as unknown[]).filter(
  (t): t is PgTable => is(t, PgTable) && getTableConfig(t).columns.some((c) => c.name === SOURCE_COLUMN),
);

/** Of the bookkeeping, what describes the rows as they are live: gone once they are retired. */
const LIVE_STATE: readonly PgTable[] = [pitwallTables.syncState, pitwallTables.responses, pitwallTables.fieldErrors];

/**
 * Retires a source the configuration no longer names, in one transaction holding its job locks (so
 * no sync or rebuild of it runs meanwhile or starts before it ends):
 *
 * - `mark`: every live `mrp` row of the source is marked deleted (`_deleted_at`, the soft delete a
 *   sync applies to rows the upstream dropped; the standings history closes their versions), so
 *   the analytics views stop showing them. Its scope states, kept bodies and field errors go: they
 *   described those rows live, and a scope state left behind would let a later sync of the source
 *   skip an unchanged response and leave its rows deleted. Its runs, rejects and shape report stay.
 * - `delete`: every row of the source, in every schema, is removed, its runs and its
 *   pitwall.sources row included.
 */
export async function retireSource(db: pg.Pool, source: string, mode: 'mark' | 'delete'): Promise<RetireOutcome> {
  return withTransaction(db, async (client) => {
    for (const job of JOB_NAMES) {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [LOCK_NAMESPACE, jobLockId(source, job)]);
      if (rows[0]?.ok) continue;
      const running = await client.query<{ run_id: number; job: string; started_at: string }>(
        `SELECT run_id::int AS run_id, job, started_at::text AS started_at FROM pitwall.sync_runs
          WHERE source = $1 AND status = 'running' ORDER BY run_id DESC LIMIT 1`,
        [source],
      );
      return { done: false, running: running.rows[0] ?? null };
    }
    const rows: Record<string, number> = {};
    const apply = async (table: PgTable, sql: (name: string) => string) => {
      const { shown, sql: name } = names(table);
      rows[shown] = (await client.query(sql(name), [source])).rowCount ?? 0;
    };
    const mrpTables = Object.values(warehouseTables) as PgTable[];
    if (mode === 'mark') {
      for (const t of mrpTables) await apply(t, (n) => `UPDATE ${n} SET _deleted_at = now() WHERE source = $1 AND _deleted_at IS NULL`);
      for (const t of LIVE_STATE) await apply(t, (n) => `DELETE FROM ${n} WHERE source = $1`);
      await client.query(
        `INSERT INTO pitwall.sources (source, unconfigured_since, retired_at) VALUES ($1, now(), now())
         ON CONFLICT (source) DO UPDATE SET retired_at = now(), unconfigured_since = coalesce(pitwall.sources.unconfigured_since, now())`,
        [source],
      );
    } else {
      // The foreign keys are deferred to the commit, when every row of the source is gone alike.
      for (const t of [...mrpTables, pointStandingsHistory, ...PITWALL_TABLES]) await apply(t, (n) => `DELETE FROM ${n} WHERE source = $1`);
    }
    return { done: true, rows };
  });
}
