import type pg from 'pg';

import type { Reject } from '../extract/types.js';

/** Bounded, so a huge garbage body cannot bloat the rejects table. */
export const MAX_SNIPPET_CHARS = 2048;

/**
 * Stores items that failed validation, one statement for the batch. JSON payloads go to
 * `payload`; a body that was not JSON at all goes to `payload_snippet`, cut to a bounded size.
 */
export async function insertRejects(
  db: pg.ClientBase | pg.Pool,
  scope: { runId: number; endpoint: string; params: string },
  rejects: readonly Reject[],
): Promise<void> {
  if (rejects.length === 0) return;
  await db.query(
    `INSERT INTO pitwall.rejects (run_id, endpoint, params, reason, payload)
     SELECT $1, $2, $3, r.reason, r.payload::jsonb FROM unnest($4::text[], $5::text[]) AS r(reason, payload)`,
    [
      scope.runId,
      scope.endpoint,
      scope.params,
      rejects.map((r) => r.reason.slice(0, 2000)),
      rejects.map((r) => JSON.stringify(r.payload ?? null)),
    ],
  );
}

export async function insertBodyReject(
  db: pg.Pool,
  scope: { runId: number; endpoint: string; params: string },
  reason: string,
  snippet: string,
): Promise<void> {
  await db.query(
    `INSERT INTO pitwall.rejects (run_id, endpoint, params, reason, payload_snippet) VALUES ($1, $2, $3, $4, $5)`,
    [scope.runId, scope.endpoint, scope.params, reason.slice(0, 2000), snippet.slice(0, MAX_SNIPPET_CHARS)],
  );
}
