import { pipeline } from 'node:stream/promises';

import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

/** A table to carry from one server to another, with the columns both have and that can be written. */
export interface TableToCopy {
  /** schema.table, quoted for SQL. */
  name: string;
  /** Quoted column names, in the target's order: generated columns are left out (the target computes them). */
  columns: string[];
}

/**
 * Schemas never carried: the catalogs; drizzle's ledger of applied migrations, which the target
 * got from its own migrate; and the job queue of warehouses older than migration 0024, which
 * drops it (its jobs were transient: the schedules' fires).
 */
const NOT_CARRIED = ['pg_catalog', 'information_schema', 'pg_toast', 'drizzle', 'graphile_worker'];

const TABLES_SQL = `
  SELECT format('%I.%I', n.nspname, c.relname) AS name,
         array_agg(quote_ident(a.attname) ORDER BY a.attnum) FILTER (WHERE a.attgenerated = '') AS columns
    FROM pg_class AS c
    JOIN pg_namespace AS n ON n.oid = c.relnamespace
    JOIN pg_attribute AS a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
   WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
     AND n.nspname <> ALL ($1) AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
   GROUP BY 1
   ORDER BY 1`;

async function tablesOf(pool: pg.Pool): Promise<TableToCopy[]> {
  const { rows } = await pool.query<{ name: string; columns: string[] | null }>(TABLES_SQL, [NOT_CARRIED]);
  return rows.map((r) => ({ name: r.name, columns: r.columns ?? [] }));
}

/**
 * The tables to copy from `source` into `target`, whose schema its migrations made: every table
 * both have, with the columns both have. `leftOut` names tables only the source has (a user's
 * own, made with `pitwall sql`): the target has no place for them.
 */
export async function tablesToCopy(source: pg.Pool, target: pg.Pool): Promise<{ tables: TableToCopy[]; leftOut: string[] }> {
  const [from, to] = await Promise.all([tablesOf(source), tablesOf(target)]);
  const targets = new Map(to.map((t) => [t.name, t]));
  const tables: TableToCopy[] = [];
  const leftOut: string[] = [];
  for (const table of from) {
    const there = targets.get(table.name);
    if (!there) leftOut.push(table.name);
    else tables.push({ name: table.name, columns: there.columns.filter((c) => table.columns.includes(c)) });
  }
  return { tables, leftOut };
}

/**
 * Streams one table's rows from `source` to `target` with COPY, in text format (the one format
 * every PostgreSQL version reads the same). `target` must have session_replication_role set to
 * `replica`: the rows arrive as they were, so neither the foreign keys (the tables arrive in any
 * order) nor triggers (the standings history would record each standing again) must fire.
 * Returns the rows written.
 */
export async function copyTable(source: pg.ClientBase, target: pg.ClientBase, table: TableToCopy, signal?: AbortSignal): Promise<number> {
  const columns = table.columns.join(', ');
  const reading = source.query(copyTo(`COPY ${table.name} (${columns}) TO STDOUT`));
  const writing = target.query(copyFrom(`COPY ${table.name} (${columns}) FROM STDIN`));
  await pipeline(reading, writing, ...(signal ? [{ signal }] : []));
  return writing.rowCount;
}

/**
 * Sequences do not travel with COPY: each of the target's is set where the source's stands, and
 * never below the largest value of the identity column it feeds (a row inserted with an explicit
 * id would otherwise be handed out again). Returns how many were set.
 */
export async function copySequences(source: pg.Pool, target: pg.Pool): Promise<number> {
  const { rows: stands } = await source.query<{ name: string; last: string | null }>(
    `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS last FROM pg_sequences WHERE schemaname <> ALL ($1)`,
    [NOT_CARRIED],
  );
  const { rows: identities } = await target.query<{ seq: string; tbl: string; col: string }>(
    `SELECT pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) AS seq, format('%I.%I', n.nspname, c.relname) AS tbl, quote_ident(a.attname) AS col
       FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid JOIN pg_namespace AS n ON n.oid = c.relnamespace
      WHERE a.attidentity <> '' AND NOT a.attisdropped AND n.nspname <> ALL ($1)`,
    [NOT_CARRIED],
  );
  const { rows: present } = await target.query<{ name: string }>(`SELECT format('%I.%I', schemaname, sequencename) AS name FROM pg_sequences`);
  const there = new Set(present.map((r) => r.name));
  let set = 0;
  for (const { name, last } of stands) {
    if (last === null || !there.has(name)) continue;
    await target.query('SELECT setval($1::regclass, $2::bigint, true)', [name, last]);
    set += 1;
  }
  for (const { seq, tbl, col } of identities) {
    // pg_get_serial_sequence gives the sequence quoted as SQL needs it.
    await target.query(
      `SELECT setval($1::regclass, m, true) FROM (SELECT max(${col}) AS m FROM ${tbl}) AS t
        WHERE m IS NOT NULL AND m > coalesce((SELECT last_value FROM pg_sequences WHERE format('%I.%I', schemaname, sequencename) = $1::text), 0)`,
      [seq],
    );
  }
  return set;
}
