import { tableMeta } from '../../../db/load/table-meta.js';
import { type WarehouseTableName, warehouseTables } from '../../../db/schema/mrp.js';
import type { WorldContext } from '../context.js';
import type { Truth, TruthRow } from '../types.js';

import { calendarTruth } from './calendar.js';
import { derivedTruth } from './derived.js';
import { pointsTruth } from './points.js';
import { raceTruth } from './races.js';

/**
 * What an ingester that walked every endpoint should hold, computed from the model (never by
 * rendering and re-parsing responses, so it can catch a renderer that is wrong). Rows are
 * sorted by each table's primary key as the warehouse schema declares it.
 */
export function buildTruth(ctx: WorldContext): Truth {
  const truth: Truth = { ...calendarTruth(ctx), ...raceTruth(ctx), ...derivedTruth(ctx), ...pointsTruth(ctx) };
  for (const name of Object.keys(warehouseTables) as WarehouseTableName[]) {
    const keys = tableMeta(warehouseTables[name]).keyColumns;
    const compare = (a: TruthRow, b: TruthRow): number => {
      for (const k of keys) {
        const x = a[k] ?? 0;
        const y = b[k] ?? 0;
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    };
    // Most tables come out in key order already, and V8's TimSort is linear on sorted input.
    truth[name].sort(compare);
  }
  return truth;
}
