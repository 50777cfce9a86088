import type { WarehouseTableName } from '../../db/schema/mrp.js';
import type { Params } from '../../endpoints/endpoint.js';
import type { Seed } from '../../endpoints/types.js';
import type { EndpointOverrides } from '../../shapes/overrides.js';

export type { Seed } from '../../endpoints/types.js';

/** A row for the loader: key and content columns in warehouse names, plus `raw`. */
export type Row = Record<string, unknown> & { raw: unknown };


/**
 * A set of rows one complete response covers, as column → allowed values (AND of `col IN (...)`).
 * `{}` covers the whole table. Rows in a scope that the response no longer has get `_deleted_at`.
 */
export interface Scope {
  table: WarehouseTableName;
  where: Record<string, number[]>;
  /**
   * The scope's columns are the request's own parameters (or it is a root's whole table), so
   * only this request ever wrote a row it covers; false for a scope over the ids a response
   * lists, which an earlier response of another request may have written too.
   */
  byRequest: boolean;
}

/**
 * A value that failed its field's type: the row loads with NULL in that column, and this is
 * recorded in pitwall.field_errors. Only a row whose key is unusable is rejected instead.
 */
export interface FieldError {
  /** The table whose row holds NULL for the value. */
  table: WarehouseTableName;
  /** Where the value sits in the response, arrays written as `[]`: `Classes[].Races[].Results[].ResultStart`. */
  path: string;
  /** The value as received. */
  value: unknown;
  /** The key columns of the row that holds NULL instead. */
  rowKey: Record<string, unknown> | null;
  reason: string;
}

export interface Reject {
  reason: string;
  payload: unknown;
}

/**
 * A later copy of an item already taken under the same parent (the same natural key, see
 * NaturalKey in declare.ts): it does not load, and is kept in pitwall.rejects with the reason.
 */
export interface Duplicate extends Reject {
  /** The table the item's row (or, for a level without a row of its own, its children's) would have gone to. */
  table: WarehouseTableName;
}

/** Everything one response yields, before anything touches the database. */
export interface Extracted {
  rows: Partial<Record<WarehouseTableName, Row[]>>;
  scopes: Scope[];
  rejects: Reject[];
  /** Copies of items already taken under the same parent, which do not load. */
  duplicates: Duplicate[];
  /** Values that failed their field's type, left NULL in rows that loaded. */
  fieldErrors: FieldError[];
  seeds: Seed[];
  /** Items in the response's main array. */
  itemCount: number;
}

/**
 * Turns the items of one response into rows, adjusted by a `PITWALL_SHAPES` file's part for the
 * endpoint (declared.ts). `known.storable`: the body's text was found to hold nothing PostgreSQL
 * cannot store (bodyIsStorable), so its items need not be checked one by one.
 */
export type Extract = (
  items: unknown[],
  params: Params,
  body: Record<string, unknown>,
  overrides?: EndpointOverrides,
  known?: { storable?: boolean },
) => Extracted;
