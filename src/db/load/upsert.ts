import type { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';

import { prepared, type PreparedStatement } from '../prepared.js';
import { DEFAULT_SOURCE, SOURCE_COLUMN } from '../schema/columns.js';

import { encodeArray, encodeJsonArray, wireArrayType, wireKind, type WireKind } from './binary-array.js';
import { gatherColumns, keyOrder } from './key-order.js';
import type { LoadCounts, LoadRow } from './load-row.js';
import { quoteIdent, tableMeta, type TableMeta } from './table-meta.js';

export type { LoadCounts, LoadRow } from './load-row.js';

/**
 * Rows per statement. Measured with 200k results rows on the 2-core reference machine, 5k beat
 * 2k (more round trips) and 10k and 20k (slower per row as the statement's working set grows).
 * It also keeps the planner's cost estimate (~8.5 per results row) under the default
 * jit_above_cost of 100k: a 20k-row statement was JIT-compiled, ~20 ms spent for nothing.
 */
export const UPSERT_CHUNK_ROWS = 5000;

interface InputColumn {
  name: string;
  sqlType: string;
  kind: WireKind;
}

interface UpsertPlan {
  statement: PreparedStatement;
  /** Counts the stored live rows of a chunk's keys last written by a run: key arrays, then the run, then the source (of a sourced table). */
  sameRun: PreparedStatement;
  sourced: boolean;
  /** Input columns in parameter order: keys, content, then raw. */
  inputs: InputColumn[];
  /** Their names, in the same order. */
  names: string[];
}

/** How a batch is compared with what is stored (see upsertRows). */
interface UpsertMode {
  compareRaw: boolean;
  /** The rows' scope has never been loaded: no identical stored row to skip, so no probe for one. */
  firstLoad: boolean;
}

const plans = new WeakMap<PgTable, Map<string, UpsertPlan>>();

/**
 * One INSERT ... SELECT unnest(...) per chunk, every column a single array parameter, so the
 * SQL text is the same for every chunk of a table and is built once.
 *
 * - The arrays are unnested in a select list (a ProjectSet), not in FROM: `FROM unnest(a, b,
 *   ...)` materialises every array into a tuplestore of its own before the first row comes out.
 *   Measured by the backend's CPU time on 100k results rows into an empty table: 1.04 s against
 *   1.23 s for the whole statement.
 * - Columns that are not integers or booleans arrive as text[] and are cast row by row in the
 *   middle SELECT (a jsonb[] parameter was measured twice as slow to receive as text[] plus a
 *   per-row cast). OFFSET 0 keeps that SELECT from being merged into the outer query, where
 *   the planner would repeat each cast in the filter and again in the insert.
 * - The NOT EXISTS filter drops rows identical to a live stored row before they reach ON
 *   CONFLICT: ON CONFLICT DO UPDATE ... WHERE false still locks the row it skips, which dirties
 *   the page and writes WAL, and "nothing changed" is the common case for a re-sync.
 *   Its OFFSET 0 keeps it a per-row probe of the primary key: as an anti-join, a table that
 *   grew inside the loading transaction (a first load: statistics still say empty) was hashed
 *   whole by sequential scan for every chunk, and each chunk got slower than the last.
 *   A first load's batch (its scope never loaded) leaves the probe out: it would find nothing, at a
 *   fifth of the statement's cost, and ON CONFLICT still judges a row that is there after all.
 * - The ON CONFLICT WHERE repeats the comparison against the row as locked, so a row changed
 *   by a concurrent transaction after our snapshot is still compared with what is really there.
 * - `xmax = 0` holds only for a tuple this statement inserted (an updated row carries our xid as
 *   the locker), the standard way to tell the two apart in RETURNING.
 */
function buildPlan(meta: TableMeta, { compareRaw, firstLoad }: UpsertMode): UpsertPlan {
  const type = new Map(meta.columns.map((c) => [c.name, c.sqlType]));
  const inputs = [...meta.keyColumns, ...meta.contentColumns, 'raw'].map((name) => {
    const sqlType = type.get(name) ?? 'text';
    return { name, sqlType, kind: wireKind(sqlType) };
  });
  const q = inputs.map((c) => quoteIdent(c.name));
  const keys = meta.keyColumns.map(quoteIdent);
  const compared = [...meta.contentColumns, ...(compareRaw ? ['raw'] : [])].map(quoteIdent);
  const runIdParam = `$${inputs.length + 1}::bigint`;
  // A batch is one source's rows: its name is one parameter, not an array of the same name.
  const sourceParam = `$${inputs.length + 2}::text`;
  const source = meta.sourced ? [quoteIdent(SOURCE_COLUMN)] : [];
  const conflictKeys = [...source, ...keys];

  const unnested = inputs.map((c, i) => `unnest($${i + 1}::${wireArrayType(c.kind)}) AS ${q[i]}`).join(', ');
  const typed = inputs.map((c) => (c.kind === 'text' && c.sqlType !== 'text' ? `${quoteIdent(c.name)}::${c.sqlType}` : quoteIdent(c.name))).join(', ');
  const sameKey = [...(meta.sourced ? [`c."source" = ${sourceParam}`] : []), ...keys.map((k) => `c.${k} = u.${k}`)].join(' AND ');
  const tuple = (alias: string) => `(${compared.map((c) => `${alias}.${c}`).join(', ')})`;
  const updates = [...meta.contentColumns.map(quoteIdent), '"raw"', '"_run_id"'].map((c) => `${c} = excluded.${c}`);
  const skipIdentical = firstLoad
    ? ''
    : `
   WHERE NOT EXISTS (
     SELECT FROM ${meta.qualifiedName} AS c
      WHERE ${sameKey} AND c."_deleted_at" IS NULL AND ${tuple('c')} IS NOT DISTINCT FROM ${tuple('u')}
     OFFSET 0)`;

  const text = `WITH written AS (
  INSERT INTO ${meta.qualifiedName} AS t (${[...source, ...q].join(', ')}, "_run_id", "_first_seen_at", "_synced_at")
  SELECT ${meta.sourced ? `${sourceParam}, ` : ''}u.*, ${runIdParam}, now(), now()
    FROM (SELECT ${typed} FROM (SELECT ${unnested}) AS u0 OFFSET 0) AS u${skipIdentical}
  ON CONFLICT (${conflictKeys.join(', ')}) DO UPDATE
     SET ${updates.join(', ')}, "_synced_at" = now(), "_deleted_at" = NULL
   WHERE ${tuple('t')} IS DISTINCT FROM ${tuple('excluded')} OR t."_deleted_at" IS NOT NULL
  RETURNING t.xmax = 0 AS inserted
)
SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM written`;
  // Parameters: the key arrays, as the upsert's first ones, then the run and the source.
  const keyCount = meta.keyColumns.length;
  const keyInputs = inputs.slice(0, keyCount);
  const keyUnnested = keyInputs.map((c, i) => `unnest($${i + 1}::${wireArrayType(c.kind)}) AS ${q[i]}`).join(', ');
  const keyTyped = keyInputs.map((c) => (c.kind === 'text' && c.sqlType !== 'text' ? `${quoteIdent(c.name)}::${c.sqlType}` : quoteIdent(c.name))).join(', ');
  const sameKeyOfRun = [...(meta.sourced ? [`c."source" = $${keyCount + 2}::text`] : []), ...keys.map((k) => `c.${k} = u.${k}`)].join(' AND ');
  const sameRun = `SELECT count(*)::int AS n
  FROM (SELECT ${keyTyped} FROM (SELECT ${keyUnnested}) AS u0 OFFSET 0) AS u
  JOIN ${meta.qualifiedName} AS c ON ${sameKeyOfRun}
 WHERE c."_run_id" = $${keyCount + 1}::bigint AND c."_deleted_at" IS NULL`;
  return { statement: prepared(text), sameRun: prepared(sameRun), sourced: meta.sourced, inputs, names: inputs.map((c) => c.name) };
}

function planFor(table: PgTable, mode: UpsertMode): UpsertPlan {
  let byMode = plans.get(table);
  if (!byMode) {
    byMode = new Map();
    plans.set(table, byMode);
  }
  const modeKey = `${mode.compareRaw}:${mode.firstLoad}`;
  let plan = byMode.get(modeKey);
  if (!plan) {
    plan = buildPlan(tableMeta(table), mode);
    byMode.set(modeKey, plan);
  }
  return plan;
}

/** The rows of the chunk `start..end` of the batch in write order. */
function chunkRows(rows: readonly LoadRow[], order: Int32Array | null, start: number, end: number): LoadRow[] {
  if (order === null) return rows.slice(start, end);
  const out = new Array<LoadRow>(end - start);
  for (let i = start; i < end; i++) out[i - start] = rows[order[i] as number] as LoadRow;
  return out;
}

/**
 * One chunk's parameters. Its columns are gathered here, chunk by chunk, rather than for the
 * whole batch up front: a chunk's arrays die young, where a whole batch's would live long enough
 * to be copied into the old generation and marked there, which was a third of the CPU time of a
 * 200k-row load.
 */
function parameters(plan: UpsertPlan, rows: readonly LoadRow[], runId: number, source: string): unknown[] {
  const columns = gatherColumns(rows, plan.names);
  const values: unknown[] = plan.inputs.map(({ name, sqlType, kind }, j) => {
    const cells = columns[j] as unknown[];
    return name === 'raw' ? encodeJsonArray(cells, name) : encodeArray(cells, kind, sqlType, name);
  });
  values.push(runId, source);
  return values;
}

/**
 * Inserts new rows, updates changed or previously deleted ones and leaves identical ones
 * untouched (not even `_synced_at` moves). The batch is deduplicated by key (last wins) and
 * sorted by key first. Each chunk is its own statement: call this inside `withTransaction`
 * when the whole batch must land or not at all.
 *
 * `compareRaw: false` judges a row changed by its typed columns alone. It is for dimension rows
 * gathered from many endpoints (a driver seen in results, points and lineups alike): were the
 * upstream to render the same driver slightly differently in two places, comparing `raw` would
 * rewrite the row back and forth on every run.
 *
 * `source` names the source whose rows these are (DEFAULT_SOURCE when omitted); on a table
 * without a source column it is not used.
 *
 * `firstLoad: true` says no row of the batch's scope has ever been stored (its scope had no
 * pitwall.sync_state row); the result is the same either way, only the cost differs.
 *
 * `sameRun()` says whether this run may have stored rows of the table already; asked once a
 * chunk has found identical rows (after the statement, which may have waited on another of the
 * run's transactions to commit one). The identical rows are then told apart, by one more
 * statement over the chunk's keys, into those stored before the run (`unchanged`) and those this
 * run stored before (`seenAgain`: an event both the schedules and the results feed list).
 * Without it, or when it says no, they are all `unchanged`, at no cost.
 */
export async function upsertRows(
  client: pg.ClientBase,
  table: PgTable,
  rows: readonly LoadRow[],
  opts: { runId: number; source?: string; compareRaw?: boolean; firstLoad?: boolean; sameRun?: () => boolean },
): Promise<LoadCounts> {
  const counts: LoadCounts = { inserted: 0, updated: 0, unchanged: 0, seenAgain: 0 };
  if (rows.length === 0) return counts;
  const plan = planFor(table, { compareRaw: opts.compareRaw ?? true, firstLoad: opts.firstLoad ?? false });
  const keyColumns = tableMeta(table).keyColumns;
  const order = keyOrder(gatherColumns(rows, keyColumns), keyColumns);
  const total = order === null ? rows.length : order.length;
  const chunkParams = (start: number) =>
    parameters(plan, chunkRows(rows, order, start, Math.min(total, start + UPSERT_CHUNK_ROWS)), opts.runId, opts.source ?? DEFAULT_SOURCE);
  let params = chunkParams(0);
  for (let start = 0; start < total; start += UPSERT_CHUNK_ROWS) {
    const pending = client.query<{ inserted: number; updated: number }>({ name: plan.statement.name, text: plan.statement.text, values: params });
    // Encode the next chunk while the server works on this one; if encoding fails, settle the
    // statement in flight first so its outcome is not left as an unhandled rejection.
    const nextStart = start + UPSERT_CHUNK_ROWS;
    if (nextStart < total) {
      try {
        params = chunkParams(nextStart);
      } catch (err) {
        await pending.catch(() => undefined);
        throw err;
      }
    }
    const written = (await pending).rows[0] ?? { inserted: 0, updated: 0 };
    counts.inserted += written.inserted;
    counts.updated += written.updated;
    const identical = Math.min(UPSERT_CHUNK_ROWS, total - start) - written.inserted - written.updated;
    const again = identical > 0 && opts.sameRun?.() ? await seenAgain(client, plan, chunkKeys(rows, order, start, total, keyColumns), opts, written) : 0;
    counts.seenAgain += Math.min(again, identical);
    counts.unchanged += identical - Math.min(again, identical);
  }
  return counts;
}

/** The key columns' parameters of the chunk at `start`, as the upsert sent them. */
function chunkKeys(rows: readonly LoadRow[], order: Int32Array | null, start: number, total: number, keyColumns: readonly string[]): unknown[][] {
  const columns = gatherColumns(chunkRows(rows, order, start, Math.min(total, start + UPSERT_CHUNK_ROWS)), keyColumns);
  return keyColumns.map((_, j) => columns[j] as unknown[]);
}

/**
 * Of a chunk's identical rows, those this run had stored before: the chunk's live rows last
 * written by the run, less the ones the upsert just wrote.
 */
async function seenAgain(
  client: pg.ClientBase,
  plan: UpsertPlan,
  keyCells: unknown[][],
  opts: { runId: number; source?: string },
  written: { inserted: number; updated: number },
): Promise<number> {
  const keys = keyCells.map((cells, j) => encodeArray(cells, plan.inputs[j]!.kind, plan.inputs[j]!.sqlType, plan.inputs[j]!.name));
  const values = [...keys, opts.runId, ...(plan.sourced ? [opts.source ?? DEFAULT_SOURCE] : [])];
  const { rows } = await client.query<{ n: number }>({ name: plan.sameRun.name, text: plan.sameRun.text, values });
  return Math.max(0, (rows[0]?.n ?? 0) - written.inserted - written.updated);
}
