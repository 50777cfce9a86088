import type pg from 'pg';

import type { EndpointName } from '../endpoints.js';
import { KEPT_ENCODING, type KeptBody } from '../kept-body.js';

import type { ScopeAt } from './sync-state.js';

export interface KeptScope extends ScopeAt {
  endpoint: EndpointName;
  responseHash: string;
}

/**
 * Keeps a scope's response body, and deletes the scope's older bodies beyond the newest
 * `versions` (the new one included). One statement, run inside the scope's transaction: the body
 * and the rows it produced commit or roll back together. The DELETE sees the rows as they were
 * before the statement, so it never touches the body being inserted.
 */
export async function keepResponse(client: pg.ClientBase, scope: KeptScope, kept: KeptBody, versions: number): Promise<void> {
  await client.query({
    // Named: prepared once per connection, not parsed and planned again for each scope.
    name: 'pitwall_keep_response',
    text: `WITH pruned AS (
       DELETE FROM pitwall.responses
        WHERE source = $9 AND endpoint = $1 AND params = $2
          AND response_id NOT IN (
            SELECT response_id FROM pitwall.responses
             WHERE source = $9 AND endpoint = $1 AND params = $2
             ORDER BY response_id DESC LIMIT $7)
     )
     INSERT INTO pitwall.responses (source, endpoint, params, run_id, response_hash, encoding, body, body_bytes)
     VALUES ($9, $1, $2, $3, $4, $5, $6, $8)`,
    values: [scope.endpoint, scope.params, scope.runId, scope.responseHash, KEPT_ENCODING, kept.body, versions - 1, kept.bytes, scope.source],
  });
}

/** The newest kept body of one scope. */
export interface KeptResponse {
  responseId: number;
  params: string;
  responseHash: string;
  encoding: string;
  body: Buffer;
}

/** A kept body's row as the queries below select it. */
interface KeptRow {
  response_id: string;
  params: string;
  response_hash: string;
  encoding: string;
  body: Buffer;
}

const keptResponse = (r: KeptRow): KeptResponse => ({ responseId: Number(r.response_id), params: r.params, responseHash: r.response_hash, encoding: r.encoding, body: r.body });

/**
 * The newest kept body of each of an endpoint's scopes whose params sort after `after`, at most
 * `limit` of them, in params order: one keyset page (pass the last page's last params to get the
 * next). Served by the index on (source, endpoint, params, response_id).
 */
export async function latestResponses(
  db: pg.Pool,
  source: string,
  endpoint: EndpointName,
  after: string | null,
  limit: number,
): Promise<KeptResponse[]> {
  const { rows } = await db.query<KeptRow>(
    `SELECT DISTINCT ON (params) response_id, params, response_hash, encoding, body
       FROM pitwall.responses
      WHERE source = $4 AND endpoint = $1 AND ($2::text IS NULL OR params > $2)
      ORDER BY params, response_id DESC
      LIMIT $3`,
    [endpoint, after, limit, source],
  );
  return rows.map(keptResponse);
}

/** The newest kept body of one scope, or undefined. */
export async function newestResponse(db: pg.Pool, scope: { source: string; endpoint: EndpointName; params: string }): Promise<KeptResponse | undefined> {
  const { rows } = await db.query<KeptRow>(
    `SELECT response_id, params, response_hash, encoding, body FROM pitwall.responses
      WHERE source = $1 AND endpoint = $2 AND params = $3
      ORDER BY response_id DESC LIMIT 1`,
    [scope.source, scope.endpoint, scope.params],
  );
  return rows[0] && keptResponse(rows[0]);
}

/**
 * Replaces a kept body with its text re-kept with the API key masked (a rebuild reading a body
 * kept before pitwall masked keys). Its hash stays: the next sync that gets the body again
 * finds the hash changed (it is now taken of the masked text), loads it once and keeps it anew.
 */
export async function replaceKeptBody(db: pg.Pool, responseId: number, kept: KeptBody): Promise<void> {
  await db.query(`UPDATE pitwall.responses SET encoding = $2, body = $3, body_bytes = $4 WHERE response_id = $1`, [responseId, KEPT_ENCODING, kept.body, kept.bytes]);
}
