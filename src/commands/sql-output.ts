import pg from 'pg';

import { renderTable } from './format.js';

export type SqlFormat = 'table' | 'csv' | 'json';

// Type OIDs (pg_type) of the types printed right-aligned: int2, int4, int8, oid, float4, float8, numeric.
const NUMERIC_OIDS: ReadonlySet<number> = new Set([21, 23, 20, 26, 700, 701, 1700]);
// date, time, timestamp, timestamptz, timetz: kept as Postgres prints them, since a JS Date would
// move a timestamp without time zone into this machine's zone.
const TIME_OIDS: ReadonlySet<number> = new Set([1082, 1083, 1114, 1184, 1266]);

const asText = (value: string) => value;

/**
 * How values arrive: for a table or CSV, every value as the text Postgres prints (as psql
 * shows it); for JSON, node-postgres' parsing (numbers, booleans, arrays, JSON) except dates and
 * times, which stay text. int8 and numeric stay strings in JSON too: their digits can exceed a
 * double's.
 */
export function typesFor(format: SqlFormat): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, fmt?: 'text' | 'binary') =>
      format !== 'json' || TIME_OIDS.has(oid) ? asText : pg.types.getTypeParser(oid, fmt)) as pg.CustomTypesConfig['getTypeParser'],
  };
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One statement's result, fetched with `rowMode: 'array'` (so repeated column names survive). */
export function formatResult(result: pg.QueryArrayResult, format: SqlFormat): string {
  const headers = result.fields.map((f) => f.name);
  if (result.fields.length === 0) {
    // A statement without a result set (SET, INSERT ...): say what it did, as psql does.
    return format === 'json' ? JSON.stringify({ command: result.command, rowCount: result.rowCount }) : `${result.command} ${result.rowCount ?? ''}`.trim();
  }
  const rows = result.rows as unknown[][];
  if (format === 'csv') return [headers, ...rows].map((r) => r.map(csvCell).join(',')).join('\n');
  if (format === 'json') return JSON.stringify(rows.map((r) => Object.fromEntries(headers.map((h, i) => [h, r[i] ?? null]))));
  const numeric = result.fields.map((f) => NUMERIC_OIDS.has(f.dataTypeID));
  const table = renderTable(headers, rows as Array<Array<string | null>>, numeric);
  return `${table}\n(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`;
}
