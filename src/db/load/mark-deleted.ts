import type { PgTable } from 'drizzle-orm/pg-core';
import type pg from 'pg';

import { DatabaseError } from '../errors.js';
import { prepared, type PreparedStatement } from '../prepared.js';
import { DEFAULT_SOURCE } from '../schema/columns.js';

import { arrayParamSql, encodeArray, wireKind } from './binary-array.js';
import type { LoadRow } from './load-row.js';
import { columnType, quoteIdent, tableMeta, type TableMeta } from './table-meta.js';

/**
 * The rows one complete upstream response covers: for each column, the set of values it may
 * take (`{ event_id: [42] }`, `{ schedule_id: [7], class_id: [3] }`); a row is in scope when
 * every listed column holds one of its values. `{}` is the whole table: a top-level list
 * (the schedule years) covers every row there is.
 */
export type DeletionScope = Record<string, ReadonlyArray<string | number>>;

/** The run that marks, and the source whose rows it may mark (DEFAULT_SOURCE when omitted). */
interface MarkOptions {
  runId: number;
  source?: string;
}

// Per table, per scope shape (its column names, in order): the statement.
const statements = new WeakMap<PgTable, Map<string, PreparedStatement>>();

/**
 * `UPDATE ... SET _deleted_at = now()` over the live rows of the scope, and with `withPresent`
 * only those whose key is not among the present keys (passed as one array per key column and
 * unnested, so the whole response is one statement whatever its size).
 * Parameters: $1 run id, $2 source, then one per scope column, then one per key column.
 */
function statement(table: PgTable, meta: TableMeta, scopeColumns: readonly string[], withPresent: boolean): PreparedStatement {
  const cacheKey = `${withPresent ? 'missing' : 'all'}:${scopeColumns.join(',')}`;
  let byShape = statements.get(table);
  if (!byShape) {
    byShape = new Map();
    statements.set(table, byShape);
  }
  const cached = byShape.get(cacheKey);
  if (cached) return cached;

  // $2 is the source: a response covers the rows of the source that asked for it, never another's.
  const inScope = scopeColumns.map((c, i) => `t.${quoteIdent(c)} = ANY(${arrayParamSql(i + 3, columnType(meta, c))})`);
  const conditions = ['t."_deleted_at" IS NULL', ...(meta.sourced ? ['t."source" = $2::text'] : []), ...inScope];
  if (withPresent) {
    const first = scopeColumns.length + 3;
    const keys = meta.keyColumns.map(quoteIdent);
    const arrays = meta.keyColumns.map((c, i) => arrayParamSql(first + i, columnType(meta, c)));
    // NOT IN over the unnested keys, not NOT EXISTS: NOT IN becomes a hashed subplan (the
    // present keys hashed once), whatever the statistics say. NOT EXISTS became an anti-join
    // whose shape followed them, and on a table filled in the same run (statistics: empty) it
    // was a nested loop rescanning the unnested arrays for every stored row of the scope:
    // ~40 ms for a 300-row event. Key columns are never NULL, so NOT IN means what it says.
    conditions.push(`(${keys.map((k) => `t.${k}`).join(', ')}) NOT IN (SELECT * FROM unnest(${arrays.join(', ')}))`);
  }
  const text = `UPDATE ${meta.qualifiedName} AS t SET "_deleted_at" = now(), "_run_id" = $1::bigint WHERE ${conditions.join(' AND ')}`;
  const named = prepared(text);
  byShape.set(cacheKey, named);
  return named;
}

function scopeParams(meta: TableMeta, scope: DeletionScope): { columns: string[]; values: Buffer[] } | null {
  const columns = Object.keys(scope);
  const values: Buffer[] = [];
  for (const c of columns) {
    const set = scope[c] ?? [];
    if (set.length === 0) return null;
    const type = columnType(meta, c);
    values.push(encodeArray(set, wireKind(type), type, c));
  }
  return { columns, values };
}

async function mark(client: pg.ClientBase, table: PgTable, scope: DeletionScope, present: readonly LoadRow[] | null, opts: MarkOptions): Promise<number> {
  const meta = tableMeta(table);
  const params = scopeParams(meta, scope);
  if (params === null) return 0;
  const values: unknown[] = [opts.runId, opts.source ?? DEFAULT_SOURCE, ...params.values];
  if (present !== null) {
    for (const k of meta.keyColumns) {
      const keys = present.map((row) => {
        const v = row[k];
        // A present row without its key would protect nothing and hide a caller bug.
        if (v === null || v === undefined) {
          throw new DatabaseError(`${meta.qualifiedName}: present row lacks key column ${k}`, { sqlstate: '23502', retryable: false });
        }
        return v;
      });
      const type = columnType(meta, k);
      values.push(encodeArray(keys, wireKind(type), type, k));
    }
  }
  const named = statement(table, meta, params.columns, present !== null);
  const result = await client.query({ name: named.name, text: named.text, values });
  return result.rowCount ?? 0;
}

/**
 * Marks deleted (`_deleted_at = now()`, `_run_id`) every live row of `scope` whose key is not
 * among `present`: the rows a complete upstream response no longer contains. Rows are never
 * removed, and rows already marked keep their original `_deleted_at`. Returns how many were marked.
 */
export function markMissingDeleted(
  client: pg.ClientBase,
  table: PgTable,
  scope: DeletionScope,
  present: readonly LoadRow[],
  opts: MarkOptions,
): Promise<number> {
  return mark(client, table, scope, present, opts);
}

/**
 * Marks every live row of `scope` deleted: its parent is gone (a cancelled event's results).
 * The whole-table scope `{}` is refused here: no parent's disappearance means that, so it can
 * only be a caller's mistake, and an expensive one.
 */
export async function markScopeDeleted(client: pg.ClientBase, table: PgTable, scope: DeletionScope, opts: MarkOptions): Promise<number> {
  if (Object.keys(scope).length === 0) throw new Error(`${tableMeta(table).qualifiedName}: markScopeDeleted needs at least one scope column`);
  return mark(client, table, scope, null, opts);
}
