import type pg from 'pg';

import { canonicalQuery } from '../api/query.js';
import { markScopeDeleted } from '../db/load/mark-deleted.js';
import { warehouseTables } from '../db/schema/mrp.js';
import { EVENT_CHILD_TABLES, EVENT_DETAIL_ENDPOINTS } from '../endpoints/registry.js';

import type { RunCounters } from './counters.js';
import { forgetResponseHashes } from './sql/sync-state.js';


/**
 * After a schedule's event list is loaded: an event that no schedule lists any more has been
 * cancelled upstream. It and every row that belongs to it get `_deleted_at`, and the hashes of
 * its detail scopes are forgotten, so that if it ever comes back its detail is loaded afresh
 * rather than skipped as "unchanged".
 */
export async function cascadeOrphanedEvents(
  client: pg.ClientBase,
  scheduleId: number,
  { runId, source }: { runId: number; source: string },
  counters: RunCounters,
): Promise<number[]> {
  const { rows } = await client.query<{ event_id: number }>(
    `UPDATE mrp.events e SET _deleted_at = now(), _run_id = $2
      WHERE e.source = $3 AND e._deleted_at IS NULL
        AND e.event_id IN (SELECT event_id FROM mrp.schedule_events WHERE source = $3 AND schedule_id = $1 AND _deleted_at IS NOT NULL)
        AND NOT EXISTS (SELECT 1 FROM mrp.schedule_events s WHERE s.source = $3 AND s.event_id = e.event_id AND s._deleted_at IS NULL)
      RETURNING e.event_id`,
    [scheduleId, runId, source],
  );
  const ids = rows.map((r) => r.event_id);
  if (ids.length === 0) return ids;
  counters.add('events', { deleted: ids.length });
  for (const table of EVENT_CHILD_TABLES) {
    const n = await markScopeDeleted(client, warehouseTables[table], { event_id: ids }, { runId, source });
    counters.add(table, { deleted: n });
  }
  const params = ids.map((id) => canonicalQuery({ EventId: id }));
  await forgetResponseHashes(client, source, EVENT_DETAIL_ENDPOINTS.map((e) => e.name), params);
  return ids;
}
