import type pg from 'pg';

import { snippetOf } from '../../api/errors.js';
import { queryWithRetry } from '../../db/transaction.js';
import { jsonText } from '../../exact-number.js';
import { storableJson, storableText } from '../extract/storable.js';
import type { Reject } from '../extract/types.js';

import type { ScopeAt } from './sync-state.js';

/** Bounded, so a huge garbage body cannot bloat the rejects table. */
export const MAX_SNIPPET_CHARS = 2048;

/** A rejected item larger than this (as JSON text) is kept as a snippet rather than whole. */
export const MAX_REJECT_PAYLOAD_CHARS = 64 * 1024;

const MAX_REASON_CHARS = 2000;

/**
 * A reject as it can be stored. Rejects are evidence, and evidence must never fail to save:
 * characters PostgreSQL cannot store (the very reason many items are rejected) become U+FFFD,
 * and an item too large to keep whole becomes a bounded snippet of its JSON.
 */
function storable(r: Reject): { reason: string; payload: string | null; snippet: string | null } {
  const reason = storableText(r.reason).slice(0, MAX_REASON_CHARS);
  const json = jsonText(storableJson(r.payload ?? null))!;
  if (json.length <= MAX_REJECT_PAYLOAD_CHARS) return { reason, payload: json, snippet: null };
  return { reason, payload: null, snippet: snippetOf(json).slice(0, MAX_SNIPPET_CHARS) };
}

/**
 * Stores items that failed validation, one statement for the batch. JSON payloads go to
 * `payload`; a body that was not JSON at all, or an item too large to keep whole, goes to
 * `payload_snippet`, cut to a bounded size.
 */
export async function insertRejects(
  db: pg.ClientBase | pg.Pool,
  scope: ScopeAt,
  rejects: readonly Reject[],
): Promise<void> {
  if (rejects.length === 0) return;
  const rows = rejects.map(storable);
  await db.query(
    `INSERT INTO pitwall.rejects (source, run_id, endpoint, params, reason, payload, payload_snippet)
     SELECT $7, $1, $2, $3, r.reason, r.payload::jsonb, r.snippet
       FROM unnest($4::text[], $5::text[], $6::text[]) AS r(reason, payload, snippet)`,
    [
      scope.runId,
      scope.endpoint,
      scope.params,
      rows.map((r) => r.reason),
      rows.map((r) => r.payload),
      rows.map((r) => r.snippet),
      scope.source,
    ],
  );
}

export async function insertBodyReject(
  db: pg.Pool,
  scope: ScopeAt,
  reason: string,
  snippet: string,
): Promise<void> {
  await queryWithRetry(
    db,
    `INSERT INTO pitwall.rejects (source, run_id, endpoint, params, reason, payload_snippet) VALUES ($6, $1, $2, $3, $4, $5)`,
    [scope.runId, scope.endpoint, scope.params, storableText(reason).slice(0, MAX_REASON_CHARS), storableText(snippet).slice(0, MAX_SNIPPET_CHARS), scope.source],
  );
}
