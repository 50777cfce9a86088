import type pg from 'pg';

import { canonicalQuery } from '../../api/query.js';
import { queryWithRetry } from '../../db/transaction.js';

/**
 * Events whose results are final as far as the frequent jobs are concerned: dated before
 * `cutoffDay` (`YYYY-MM-DD`: today minus PITWALL_SETTLE_DAYS) and with their results scope loaded (`ok` in
 * sync_state). Only `full` revisits them. An event whose results never loaded is not settled,
 * however old, so a failure is retried by the next `season` run rather than forgotten.
 */
export async function settledEventIds(db: pg.Pool | pg.ClientBase, source: string, cutoffDay: string): Promise<Set<number>> {
  // event_date is the track's local time without a zone, so it is compared with a bare day.
  const old = await queryWithRetry<{ event_id: number }>(
    db,
    `SELECT event_id FROM mrp.events WHERE source = $2 AND _deleted_at IS NULL AND event_date < $1::date ORDER BY event_id`,
    [cutoffDay, source],
  );
  if (old.rows.length === 0) return new Set();
  // Scope params are built by the same function the walk uses, never re-spelled in SQL.
  const byParams = new Map(old.rows.map((r) => [canonicalQuery({ EventId: r.event_id }), r.event_id]));
  const loaded = await queryWithRetry<{ params: string }>(
    db,
    `SELECT params FROM pitwall.sync_state WHERE source = $2 AND endpoint = 'results' AND status = 'ok' AND params = ANY($1::text[])`,
    [[...byParams.keys()], source],
  );
  return new Set(loaded.rows.map((r) => byParams.get(r.params)).filter((id): id is number => id !== undefined));
}
