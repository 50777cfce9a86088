/**
 * One-dimensional Postgres arrays in the binary wire format, for the `unnest($1::integer[], ...)`
 * parameters of the bulk loaders. node-postgres sends a Buffer parameter in binary format.
 *
 * Why binary rather than the text literal `{1,2,"x"}`: text literals must be escaped in JS and
 * tokenised again by array_in, which together cost about as much as the insert itself on
 * 200k-row loads. Binary elements are length-prefixed, so no escaping exists and no value can
 * spill into its neighbour and shift the columns out of line with each other.
 *
 * Layout (array_recv): ndim, has-nulls flag, element type OID, then per dimension its length
 * and lower bound, then each element as an int32 byte length (-1 for NULL) and its bytes.
 */

import { jsonText } from '../../exact-number.js';
import { DatabaseError } from '../errors.js';

/** How a column's values travel. Everything that is not an integer or boolean travels as text and is cast in SQL. */
export type WireKind = 'int2' | 'int4' | 'int8' | 'bool' | 'text';

const OID: Record<WireKind, number> = { int2: 21, int4: 23, int8: 20, bool: 16, text: 25 };
const ARRAY_TYPE: Record<WireKind, string> = { int2: 'smallint[]', int4: 'integer[]', int8: 'bigint[]', bool: 'boolean[]', text: 'text[]' };
const HEADER_BYTES = 20;

/** The wire kind for a column's SQL type as Drizzle renders it. */
export function wireKind(sqlType: string): WireKind {
  switch (sqlType) {
    case 'smallint':
      return 'int2';
    case 'integer':
      return 'int4';
    case 'bigint':
      return 'int8';
    case 'boolean':
      return 'bool';
    default:
      return 'text';
  }
}

/** The SQL array type a parameter of this kind is declared as (`$1::integer[]`). */
export function wireArrayType(kind: WireKind): string {
  return ARRAY_TYPE[kind];
}

/**
 * A value the column cannot hold is refused before anything is sent, as the DatabaseError
 * Postgres would have raised for it (22003 out of range, 22P02 not of the column's type, 23502
 * null), so callers handle bad data the same way whichever side noticed it.
 */
function refuse(column: string, expected: string, value: unknown, sqlstate = '22P02'): never {
  const got =
    value === undefined || value === null
      ? String(value)
      : value instanceof Date
        ? 'a Date'
        : typeof value === 'string'
          ? `string ${JSON.stringify(value.slice(0, 40))}`
          : `${typeof value} ${String(value).slice(0, 40)}`;
  throw new DatabaseError(`column ${column}: expected ${expected}, got ${got}`, { sqlstate, retryable: false });
}

function header(buf: Buffer, kind: WireKind, count: number, hasNulls: boolean): void {
  buf.writeInt32BE(1, 0);
  buf.writeInt32BE(hasNulls ? 1 : 0, 4);
  buf.writeUInt32BE(OID[kind], 8);
  buf.writeInt32BE(count, 12);
  buf.writeInt32BE(1, 16);
}

function encodeFixed(values: readonly unknown[], kind: 'int2' | 'int4' | 'int8' | 'bool', column: string): Buffer {
  const width = kind === 'int2' ? 2 : kind === 'int4' ? 4 : kind === 'int8' ? 8 : 1;
  const buf = Buffer.allocUnsafe(HEADER_BYTES + values.length * (4 + width));
  let pos = HEADER_BYTES;
  let hasNulls = false;
  for (const v of values) {
    if (v === null || v === undefined) {
      hasNulls = true;
      pos = buf.writeInt32BE(-1, pos);
      continue;
    }
    pos = buf.writeInt32BE(width, pos);
    if (kind === 'bool') {
      if (typeof v !== 'boolean') refuse(column, 'a boolean', v);
      pos = buf.writeUInt8(v ? 1 : 0, pos);
    } else if (kind === 'int8') {
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v))) pos = buf.writeBigInt64BE(BigInt(v), pos);
      else refuse(column, 'a safe integer or bigint', v);
    } else {
      const max = kind === 'int4' ? 2 ** 31 : 2 ** 15;
      const expected = `a ${kind === 'int4' ? '32' : '16'}-bit integer`;
      if (typeof v !== 'number' || !Number.isInteger(v)) refuse(column, expected, v);
      if (v < -max || v >= max) refuse(column, expected, v, '22003');
      pos = kind === 'int4' ? buf.writeInt32BE(v, pos) : buf.writeInt16BE(v, pos);
    }
  }
  header(buf, kind, values.length, hasNulls);
  return buf.subarray(0, pos);
}

/**
 * Text elements. `strict` (for text columns) takes only strings; otherwise (numeric, timestamp,
 * ...) a finite number is also accepted and sent as its decimal text.
 */
function encodeText(values: readonly string[] | readonly unknown[], strict: boolean, column: string): Buffer {
  const texts = new Array<string | null>(values.length);
  // Sized exactly: a bound of 3 bytes per UTF-16 unit (the worst case) made every chunk's raw
  // column a buffer three times too large, and fresh pages are paid for as they are touched.
  let size = HEADER_BYTES + 4 * values.length;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    let s: string | null;
    if (v === null || v === undefined) s = null;
    else if (typeof v === 'string') s = v;
    else if (!strict && typeof v === 'number' && Number.isFinite(v)) s = String(v);
    else refuse(column, strict ? 'a string' : 'a string or finite number', v);
    texts[i] = s;
    if (s !== null) size += Buffer.byteLength(s, 'utf8');
  }
  const buf = Buffer.allocUnsafe(size);
  let pos = HEADER_BYTES;
  let hasNulls = false;
  for (const s of texts) {
    if (s === null) {
      hasNulls = true;
      pos = buf.writeInt32BE(-1, pos);
      continue;
    }
    const written = buf.write(s, pos + 4, 'utf8');
    buf.writeInt32BE(written, pos);
    pos += 4 + written;
  }
  header(buf, 'text', values.length, hasNulls);
  return buf;
}

/** A column's values as a binary array parameter of `kind`; `sqlType` decides how strict text is. */
export function encodeArray(values: readonly unknown[], kind: WireKind, sqlType: string, column: string): Buffer {
  return kind === 'text' ? encodeText(values, sqlType === 'text', column) : encodeFixed(values, kind, column);
}

/**
 * Each value as its JSON text, as a text[] parameter (cast to jsonb in SQL); `undefined` is not
 * JSON and is refused. jsonText writes a number JSON.parse could not carry as sent, not as `null`.
 */
export function encodeJsonArray(values: readonly unknown[], column: string): Buffer {
  const texts = values.map((v) => {
    const json = jsonText(v);
    if (json === undefined) refuse(column, 'a JSON value', v, '23502');
    return json;
  });
  return encodeText(texts, true, column);
}

/**
 * SQL for array parameter `$index` holding values of a column of `sqlType`, typed as that
 * column's array type: `$2::integer[]`, or `$2::text[]::numeric[]` when the values travel as text.
 */
export function arrayParamSql(index: number, sqlType: string): string {
  const kind = wireKind(sqlType);
  const param = `$${index}::${wireArrayType(kind)}`;
  return kind === 'text' && sqlType !== 'text' ? `${param}::${sqlType}[]` : param;
}
