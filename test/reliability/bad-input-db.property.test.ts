import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { canonicalQuery } from '../../src/api/query.js';
import { id } from '../../src/api/schemas/primitives.js';
import { tableMeta } from '../../src/db/load/table-meta.js';
import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import { RunCounters } from '../../src/sync/counters.js';
import { ENDPOINTS } from '../../src/sync/endpoints.js';
import { processResponse, type ProcessContext } from '../../src/sync/process-response.js';
import { insertRun } from '../../src/sync/sql/sync-runs.js';
import { ScopeTouches } from '../../src/sync/sql/sync-state.js';
import { useDatabase } from '../helpers/fixture.js';

import { LEVELS, longName, unstorableString, validObject } from './helpers/items.js';

/**
 * The load path, into real PostgreSQL, for random responses: whatever the items hold, a response
 * commits (rows, rejects and its sync_state row) without a database error. Valid items arrive as
 * rows; the rest arrive in pitwall.rejects, U+0000 and lone surrogates included.
 */

const RUNS = process.env.PITWALL_SOAK ? 200 : 12;
const SEED = { year: 2024, scheduleId: 77, eventId: 901, classId: 3 };

let ctx: ProcessContext;
const db = useDatabase();
beforeAll(async () => {
  const runId = await insertRun(db.pool, DEFAULT_SOURCE, 'full', 'manual', 'running');
  ctx = {
    pool: db.pool,
    runId,
    source: DEFAULT_SOURCE,
    counters: new RunCounters(),
    hashes: new Map(),
    touches: new ScopeTouches(db.pool, runId, DEFAULT_SOURCE),
    logger: createSilentLogger(),
  };
});

/** Rows of `table` that are live and carry one of the given keys. */
async function liveKeys(table: string, keyCols: string[], keys: number[][]): Promise<number> {
  if (keys.length === 0) return 0;
  const arrays = keyCols.map((_, i) => keys.map((k) => k[i]));
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM mrp.${table}
      WHERE _deleted_at IS NULL AND (${keyCols.join(', ')}) IN (SELECT * FROM unnest(${keyCols.map((_, i) => `$${i + 1}::int[]`).join(', ')}))`,
    arrays,
  );
  return rows[0]!.n;
}

describe.each(ENDPOINTS.map((ep) => [ep.name, ep] as const))('loading %s responses', (_name, ep) => {
  it('commits valid items as rows and spoiled ones as rejects, never a database error', async () => {
    const level = LEVELS[ep.name];
    const keyField = Object.entries(level.schema.shape).find(([, f]) => f === id)?.[0] ?? 'Driver';
    const spoiled = fc.oneof(
      // A key past the int4 columns, text PostgreSQL cannot store, or not an item at all.
      validObject(level).map((o) => ({ ...o, [keyField]: 2 ** 31 })),
      fc.tuple(validObject(level), unstorableString).map(([o, bad]) => ({ ...o, [`Odd${bad}`]: bad })),
      fc.jsonValue({ maxDepth: 2 }),
      // A driver name too long for the btree index on drivers.last_name (54000 for the whole response).
      validObject(level).map((o) => ('Driver' in o ? { ...o, Driver: [{ DriverId: 7, DriverLName: longName() }] } : o)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(validObject(level), { maxLength: 3 }), fc.array(spoiled, { maxLength: 2 }), async (good, bad) => {
        const items = JSON.parse(JSON.stringify([...good, ...bad])) as unknown[];
        const params = ep.params(SEED);
        const query = canonicalQuery(params);
        const before = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.rejects');
        const extracted = ep.extract(items, params, { RequestValid: 1, [ep.arrayKey]: items });
        await processResponse(ctx, ep, params, query, { RequestValid: 1, [ep.arrayKey]: items, Nonce: Math.random() });
        const after = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.rejects');
        // Copies of a sibling's key are kept there too, beside the rejects.
        expect(after.rows[0]!.n - before.rows[0]!.n).toBe(extracted.rejects.length + extracted.duplicates.length);
        for (const [table, rows] of Object.entries(extracted.rows)) {
          const meta = tableMeta(warehouseTables[table as WarehouseTableName]);
          const keys = [...new Map(rows!.map((r) => [JSON.stringify(meta.keyColumns.map((k) => r[k])), meta.keyColumns.map((k) => Number(r[k]))])).values()];
          expect(await liveKeys(table, meta.keyColumns, keys)).toBe(keys.length);
        }
        // The scope's field errors are replaced by this response's, whatever text they hold.
        const errors = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.field_errors WHERE endpoint = $1 AND params = $2', [ep.name, query]);
        expect(errors.rows[0]!.n).toBe(extracted.fieldErrors.length);
        const state = await db.pool.query('SELECT status FROM pitwall.sync_state WHERE endpoint = $1 AND params = $2', [ep.name, query]);
        expect(state.rows[0]?.status).toBe('ok');
      }),
      { numRuns: RUNS },
    );
  });
});
