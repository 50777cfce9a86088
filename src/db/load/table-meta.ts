import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';

import { BOOKKEEPING_COLUMNS, SOURCE_COLUMN } from '../schema/columns.js';

export interface ColumnMeta {
  /** The column's SQL name, already checked by `quoteIdent`'s rule (so safe to quote). */
  name: string;
  /** As Drizzle renders it in DDL, e.g. `integer`, `timestamp with time zone`; checked too. */
  sqlType: string;
}

export interface TableMeta {
  /** `"schema"."table"`, quoted, ready to splice into SQL. */
  qualifiedName: string;
  /**
   * Primary-key column names (unquoted), in the key's declared order, without `source`: the
   * upstream's key. A load writes one source's rows, so the loaders pass the source as one value.
   */
  keyColumns: string[];
  /** Whether the table has the `source` column (last in its key): every mrp table does. */
  sourced: boolean;
  /** Every column that is neither a key, nor `source`, nor bookkeeping (unquoted), in table order. */
  contentColumns: string[];
  /** Every column of the table, bookkeeping included, in table order. */
  columns: ColumnMeta[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
/** A type name, optionally with a modifier such as numeric(10, 2); nothing that could end a cast. */
const SQL_TYPE = /^[a-z][a-z0-9_ ]*(\(\d+(, ?\d+)?\))?( with(out)? time zone)?$/;

/**
 * Quotes a lower-case SQL identifier. Anything else is refused rather than escaped: table and
 * column names come from our own schema, so a surprising one is a bug, never data.
 */
export function quoteIdent(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`refusing SQL identifier ${JSON.stringify(name)}`);
  return `"${name}"`;
}

function checkSqlType(type: string, column: string): string {
  if (!SQL_TYPE.test(type)) throw new Error(`refusing SQL type ${JSON.stringify(type)} of column ${column}`);
  return type;
}

const bookkeeping: ReadonlySet<string> = new Set(BOOKKEEPING_COLUMNS);
// Tables are module-level singletons, so a WeakMap keyed by the table object caches for the process.
const cache = new WeakMap<PgTable, TableMeta>();

/** What the loaders need to know about a warehouse table, read once from its Drizzle definition. */
export function tableMeta(table: PgTable): TableMeta {
  const cached = cache.get(table);
  if (cached) return cached;

  const config = getTableConfig(table);
  const columns = config.columns.map((c) => ({ name: c.name, sqlType: checkSqlType(c.getSQLType(), c.name) }));
  for (const c of columns) quoteIdent(c.name);
  // A single-column key is declared on the column; a composite one in the table's extra config.
  const composite = config.primaryKeys[0];
  const declaredKey = composite ? composite.columns.map((c) => c.name) : config.columns.filter((c) => c.primary).map((c) => c.name);
  const sourced = columns.some((c) => c.name === SOURCE_COLUMN);
  if (sourced && declaredKey.at(-1) !== SOURCE_COLUMN) throw new Error(`table ${config.name} has a source column that does not end its key`);
  const keyColumns = declaredKey.filter((c) => c !== SOURCE_COLUMN);
  if (keyColumns.length === 0) throw new Error(`table ${config.name} has no primary key; the loaders need one`);
  for (const name of BOOKKEEPING_COLUMNS) {
    if (!columns.some((c) => c.name === name)) throw new Error(`table ${config.name} lacks bookkeeping column ${name}`);
  }

  const keys = new Set(keyColumns);
  const meta: TableMeta = {
    qualifiedName: `${quoteIdent(config.schema ?? 'public')}.${quoteIdent(config.name)}`,
    keyColumns,
    sourced,
    contentColumns: columns.map((c) => c.name).filter((n) => !keys.has(n) && !bookkeeping.has(n) && n !== SOURCE_COLUMN),
    columns,
  };
  cache.set(table, meta);
  return meta;
}

/** The SQL type of a column of `meta`, or an error naming the table when there is no such column. */
export function columnType(meta: TableMeta, name: string): string {
  const column = meta.columns.find((c) => c.name === name);
  if (!column) throw new Error(`${meta.qualifiedName} has no column ${JSON.stringify(name)}`);
  return column.sqlType;
}
