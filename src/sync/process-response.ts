import type pg from 'pg';

import { markMissingDeleted } from '../db/load/mark-deleted.js';
import { upsertRows } from '../db/load/upsert.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';
import { withTransaction } from '../db/transaction.js';
import type { Logger } from '../log.js';

import { cascadeOrphanedEvents } from './cascade.js';
import { RunCounters } from './counters.js';
import { DIMENSION_TABLES, LOAD_ORDER, type Endpoint, type Params } from './endpoints.js';
import type { Extracted, Seed } from './extract/types.js';
import { responseHash } from './hash.js';
import { insertRejects } from './sql/rejects.js';
import { recordScopeSuccess, scopeKey, touchScope } from './sql/sync-state.js';

export interface ProcessContext {
  pool: pg.Pool;
  runId: number;
  counters: RunCounters;
  /** Last good response hash per scope, loaded at the start of the run and kept current. */
  hashes: Map<string, string>;
  logger: Logger;
  signal?: AbortSignal;
}

/** A response body whose main list is missing or is not a list. */
export class EnvelopeError extends Error {
  override readonly name = 'EnvelopeError';
}

/**
 * Turns one valid response into warehouse rows. The rows of every table it touches, the deletes
 * of the scopes it covers, its rejects and its sync_state row commit in one transaction, so a
 * run that dies anywhere leaves each scope either wholly old or wholly new. Returns the seeds
 * its children fan out from, also when the response was unchanged and nothing was written.
 */
export async function processResponse(
  ctx: ProcessContext,
  ep: Endpoint,
  params: Params,
  query: string,
  body: Record<string, unknown>,
): Promise<Seed[]> {
  const items = body[ep.arrayKey];
  if (!Array.isArray(items)) throw new EnvelopeError(`${ep.path}: the response has no "${ep.arrayKey}" list`);
  const extracted = ep.extract(items, params, body);
  const hash = responseHash(body);
  const key = scopeKey(ep.name, query);

  if (ctx.hashes.get(key) === hash) {
    ctx.counters.scopes.unchanged += 1;
    for (const [table, rows] of Object.entries(extracted.rows)) {
      ctx.counters.add(table as WarehouseTableName, { unchanged: rows.length });
    }
    await touchScope(ctx.pool, ep.name, query, ctx.runId);
    return extracted.seeds;
  }

  const committed = await withTransaction(ctx.pool, (client) => load(client, ctx.runId, ep, params, query, extracted, hash), {
    signal: ctx.signal,
    onRetry: (err, attempt) =>
      ctx.logger.warn({ endpoint: ep.name, params: query, attempt, err: String(err) }, 'retrying transaction'),
  });
  // Counted only after COMMIT: a retried transaction must not count twice.
  ctx.counters.merge(committed);
  ctx.counters.scopes.loaded += 1;
  ctx.hashes.set(key, hash);
  return extracted.seeds;
}

async function load(
  client: pg.PoolClient,
  runId: number,
  ep: Endpoint,
  params: Params,
  query: string,
  extracted: Extracted,
  hash: string,
): Promise<RunCounters> {
  const local = new RunCounters();
  for (const table of LOAD_ORDER) {
    const rows = extracted.rows[table];
    if (!rows?.length) continue;
    local.add(table, await upsertRows(client, warehouseTables[table], rows, { runId, compareRaw: !DIMENSION_TABLES.has(table) }));
  }
  for (const scope of extracted.scopes) {
    const present = extracted.rows[scope.table] ?? [];
    const deleted = await markMissingDeleted(client, warehouseTables[scope.table], scope.where, present, { runId });
    local.add(scope.table, { deleted });
  }
  if (ep.name === 'events') await cascadeOrphanedEvents(client, Number(params.ScheduleId), runId, local);
  await insertRejects(client, { runId, endpoint: ep.name, params: query }, extracted.rejects);
  local.add(ep.tables[0] ?? 'results', { rejected: extracted.rejects.length });
  local.unknownFields += extracted.unknownFields;
  await recordScopeSuccess(client, { endpoint: ep.name, params: query, responseHash: hash, itemCount: extracted.itemCount, runId });
  return local;
}
