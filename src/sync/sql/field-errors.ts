import type pg from 'pg';

import { ExactNumber, jsonText } from '../../exact-number.js';
import { storableJson, storableText } from '../extract/storable.js';
import type { FieldError } from '../extract/types.js';

import type { ScopeAt } from './sync-state.js';

/** The received value is evidence, not a copy of the item (that is in the row's `raw`): bounded. */
export const MAX_FIELD_VALUE_CHARS = 200;

const MAX_REASON_CHARS = 1000;

/**
 * The value as JSON text, cut to MAX_FIELD_VALUE_CHARS, with text PostgreSQL refuses repaired. A
 * number JSON.parse cannot carry is its text as sent (`1e400`), never the `null` Infinity becomes.
 */
export function fieldValueText(value: unknown): string {
  const json = value === undefined ? 'undefined' : value instanceof ExactNumber ? value.text : jsonText(storableJson(value))!;
  return json.length <= MAX_FIELD_VALUE_CHARS ? json : `${json.slice(0, MAX_FIELD_VALUE_CHARS - 1)}…`;
}

/**
 * Records the field errors of a scope's response just loaded, in the same transaction as its
 * rows. The scope's earlier ones are cleared by recordScopeSuccess (sync-state.ts), which must
 * run first, so the table describes the values the warehouse holds NULL for now, not every
 * failure ever seen. One statement for the batch; none when there are no errors.
 */
export async function insertFieldErrors(
  db: pg.ClientBase,
  scope: ScopeAt,
  errors: readonly FieldError[],
): Promise<void> {
  if (errors.length === 0) return;
  await db.query(
    `INSERT INTO pitwall.field_errors (source, run_id, endpoint, params, table_name, path, value, row_key, reason)
     SELECT $9, $1, $2, $3, e.table_name, e.path, e.value, e.row_key::jsonb, e.reason
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS e(table_name, path, value, row_key, reason)`,
    [
      scope.runId,
      scope.endpoint,
      scope.params,
      errors.map((e) => e.table),
      errors.map((e) => storableText(e.path)),
      errors.map((e) => fieldValueText(e.value)),
      errors.map((e) => (e.rowKey === null ? null : jsonText(storableJson(e.rowKey)))),
      errors.map((e) => storableText(e.reason).slice(0, MAX_REASON_CHARS)),
      scope.source,
    ],
  );
}
