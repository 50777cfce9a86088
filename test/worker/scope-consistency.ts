import type pg from 'pg';

import type { WarehouseTableName } from '../../src/db/schema/mrp.js';
import { fetchTruth, readLiveRows } from '../helpers/warehouse.js';

/** For a scope's endpoint: the tables its response covers and the columns its parameters pin. */
const SCOPES: Record<string, { tables: WarehouseTableName[]; where: Record<string, string> }> = {
  events: { tables: ['schedule_events'], where: { schedule_id: 'ScheduleId' } },
  results: { tables: ['races', 'results'], where: { event_id: 'EventId' } },
  lineups: { tables: ['lineups'], where: { event_id: 'EventId' } },
  entry_list: { tables: ['entry_list'], where: { event_id: 'EventId' } },
  driver_passes: { tables: ['driver_passes'], where: { event_id: 'EventId' } },
  point_classes: { tables: ['point_classes'], where: { schedule_id: 'ScheduleId' } },
  point_standings: { tables: ['point_standings'], where: { schedule_id: 'ScheduleId', class_id: 'ClassId' } },
};

/**
 * Every scope sync_state records as loaded (`ok`) whose rows differ from the simulator's truth:
 * with an unchanged upstream, a scope that committed must hold exactly the truth's rows.
 * Returns the scopes that do not, as `endpoint?params`, and how many scopes were checked.
 */
export async function inconsistentScopes(db: pg.Pool, simUrl: string): Promise<{ checked: number; inconsistent: string[] }> {
  const truth = await fetchTruth(simUrl);
  const live = new Map<WarehouseTableName, Record<string, unknown>[]>();
  const rowsOf = async (t: WarehouseTableName) => live.get(t) ?? live.set(t, await readLiveRows(db, t)).get(t)!;
  const { rows } = await db.query<{ endpoint: string; params: string }>(`SELECT endpoint, params FROM pitwall.sync_state WHERE status = 'ok'`);
  const inconsistent: string[] = [];
  let checked = 0;
  for (const { endpoint, params } of rows) {
    const scope = SCOPES[endpoint];
    if (!scope) continue;
    checked += 1;
    const query = new URLSearchParams(params);
    const pinned = Object.entries(scope.where).map(([col, param]) => [col, Number(query.get(param))] as const);
    const inScope = (r: Record<string, unknown>) => pinned.every(([col, v]) => r[col] === v);
    for (const table of scope.tables) {
      const got = (await rowsOf(table)).filter(inScope);
      const want = (truth[table] ?? []).filter(inScope);
      if (JSON.stringify(got) !== JSON.stringify(want)) inconsistent.push(`${endpoint}?${params} (${table})`);
    }
  }
  return { checked, inconsistent };
}
