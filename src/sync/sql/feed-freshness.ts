import type pg from 'pg';

import { canonicalQuery } from '../../api/query.js';
import { queryWithRetry } from '../../db/transaction.js';

/**
 * Events on the latest-results feed whose detail the warehouse has not caught up with: for one
 * of `endpoints` (results, lineups, ...) the event's scope was never loaded, is failing, or last
 * succeeded before the event's feed rows last changed.
 *
 * Comparing the feed rows' `_synced_at` with the scope's `last_success_at` (both Postgres
 * `now()`, one clock) needs no memory of earlier runs: an event whose feed rows changed in a
 * run that then died before refreshing it is still picked up by the next run.
 */
export async function staleFeedEvents(db: pg.Pool | pg.ClientBase, source: string, endpoints: readonly string[]): Promise<number[]> {
  const feed = await queryWithRetry<{ event_id: number; synced_at: Date }>(
    db,
    `SELECT event_id, max(_synced_at) AS synced_at FROM mrp.results_feed
      WHERE source = $1 AND _deleted_at IS NULL GROUP BY event_id ORDER BY event_id`,
    [source],
  );
  if (feed.rows.length === 0) return [];
  const params = feed.rows.map((r) => canonicalQuery({ EventId: r.event_id }));
  const state = await queryWithRetry<{ endpoint: string; params: string; status: string; last_success_at: Date | null }>(
    db,
    `SELECT endpoint, params, status, last_success_at FROM pitwall.sync_state
      WHERE source = $3 AND endpoint = ANY($1::text[]) AND params = ANY($2::text[])`,
    [endpoints, params, source],
  );
  const scopes = new Map(state.rows.map((s) => [`${s.endpoint}?${s.params}`, s]));
  return feed.rows
    .filter((event, i) =>
      endpoints.some((endpoint) => {
        const s = scopes.get(`${endpoint}?${params[i]}`);
        return !s || s.status !== 'ok' || !s.last_success_at || s.last_success_at < event.synced_at;
      }),
    )
    .map((event) => event.event_id);
}
