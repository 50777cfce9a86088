import type pg from 'pg';

import { DatabaseError } from '../db/errors.js';
import { markMissingDeleted } from '../db/load/mark-deleted.js';
import { upsertRows } from '../db/load/upsert.js';
import { warehouseTables, type WarehouseTableName } from '../db/schema/mrp.js';
import { withTransaction } from '../db/transaction.js';
import { requestKey } from '../endpoints/endpoint.js';
import { jsonText } from '../exact-number.js';
import type { Logger } from '../log.js';
import type { Shapes } from '../shapes/overrides.js';

import { itemsOf } from './bad-body.js';
import { cascadeOrphanedEvents } from './cascade.js';
import { RunCounters } from './counters.js';
import type { DimensionCache } from './dimension-cache.js';
import { childrenOf, DIMENSION_TABLES, LOAD_ORDER, type Endpoint, type Params } from './endpoints.js';
import { bodyIsStorable } from './extract/storable.js';
import type { Extracted, Seed } from './extract/types.js';
import { saltedHash, scopeHash, textDigest, type TextDigest } from './hash.js';
import { compressBody, type KeptBody } from './kept-body.js';
import { ScopeStageError } from './scope-failure.js';
import type { ShapeTracker } from './shape/tracker.js';
import { insertFieldErrors } from './sql/field-errors.js';
import { insertRejects } from './sql/rejects.js';
import { keepResponse } from './sql/responses.js';
import { fenceRun } from './sql/sync-runs.js';
import { recordScopeSuccess, scopeKey, type ScopeTouches } from './sql/sync-state.js';

export interface ProcessContext {
  pool: pg.Pool;
  runId: number;
  /** The source whose responses these are: every row, scope and body it writes names it. */
  source: string;
  counters: RunCounters;
  /** Last good response hash per scope, loaded at the start of the run and kept current. */
  hashes: Map<string, string>;
  /** Where unchanged scopes are recorded, in batches. */
  touches: ScopeTouches;
  logger: Logger;
  signal?: AbortSignal;
  /** Dimension rows this run has committed (see DimensionCache); without it every one is sent. */
  dimensions?: DimensionCache;
  /**
   * The tables this run has written rows of so far. With it, a table's identical rows are told
   * apart into unchanged (stored before the run) and seen again (stored by this run), once the
   * run has written some of it (upsertRows' `sameRun`); without it they are all unchanged.
   */
  written?: Set<WarehouseTableName>;
  /** Versions of each scope's body pitwall.responses keeps (PITWALL_KEEP_RESPONSES); default 1. */
  keepResponses?: number;
  /** Where the shapes of loaded bodies are counted (`pitwall drift`); nothing is counted without it. */
  shapes?: ShapeTracker;
  /** A `PITWALL_SHAPES` file's adjustments to the declarations; the declarations alone without it. */
  overrides?: Shapes;
}

/** Where a body came from, beyond its parsed value. */
export interface BodySource {
  /** The text the body was parsed from (decoded, `,,` repaired): what pitwall.responses keeps, unless `kept`. */
  text?: string;
  /**
   * Set by a rebuild, for a body read back from pitwall.responses: it is not kept again, and the
   * scope records the hash it was kept with (under the current overrides), so the next sync
   * still recognises the same body.
   */
  kept?: { responseHash: string };
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
  digest: TextDigest | null = null,
  source: BodySource = {},
): Promise<Seed[]> {
  const overrides = ctx.overrides?.endpoints.get(ep.name);
  // The kept body's hash is the body's own; the scope's also covers the overrides it loaded under.
  const bodyHash = source.kept?.responseHash ?? scopeHash(digest, body);
  const hash = saltedHash(bodyHash, overrides?.digest);
  const key = scopeKey(ep.name, query);
  const unchanged = ctx.hashes.get(key) === hash;
  // Counted before the envelope check, so a body whose list key changed shows up in the shape
  // report; an unchanged body (always one that loaded before) is not walked again.
  if (!unchanged) ctx.shapes?.record(ep, body);
  const items = itemsOf(ep, body);

  // An unchanged response is not extracted unless its children need its seeds: validating and
  // shaping the items is most of a response's CPU time, and a re-sync is mostly unchanged
  // responses. So the tables' `unchanged` counts only rows of loaded responses that the loader
  // found identical; responses skipped whole are counted in `scopes.unchanged`.
  if (unchanged) {
    await recordUnchanged(ctx, ep, query);
    return childrenOf(ep.name).length > 0 ? inStage('extract', () => ep.extract(items, params, body, overrides)).seeds : [];
  }

  // Compressed on the thread pool while the items are extracted, before the transaction begins.
  // Without the received text (a caller holding only the parsed body) its JSON is kept instead.
  const compressing = source.kept ? null : compressBody(source.text ?? jsonText(body)!);
  compressing?.catch(() => undefined); // awaited below; an extract that throws must not leave it unhandled
  const storable = source.text !== undefined && bodyIsStorable(source.text);
  const extracted = inStage('extract', () => ep.extract(items, params, body, overrides, { storable }));
  const { toLoad, known } = withoutKnownDimensions(ctx, extracted);
  const kept = compressing && { body: await compressing, versions: ctx.keepResponses ?? 1 };

  const scope = { query, hash, bodyHash };
  const committed = await withTransaction(ctx.pool, (client) => load(client, ctx, ep, params, scope, toLoad, kept), {
    signal: ctx.signal,
    onRetry: (err, attempt) =>
      ctx.logger.warn({ endpoint: ep.name, params: query, attempt, err: String(err) }, 'retrying transaction'),
  }).catch((err: unknown) => {
    // The database's own failures keep their class (bad data is the scope's, a lost server the
    // run's); anything else thrown while loading is this scope's.
    throw err instanceof DatabaseError || ctx.signal?.aborted ? err : new ScopeStageError('load', err);
  });
  // Counted and remembered only after COMMIT: a retried transaction must not count twice, and a
  // rolled-back one has written nothing.
  for (const [table, n] of known) committed.add(table, { seenAgain: n });
  countLateRepeats(ctx, toLoad, committed);
  for (const table of DIMENSION_TABLES) ctx.dimensions?.remember(table, toLoad.rows[table] ?? []);
  ctx.counters.merge(committed);
  ctx.counters.scopes.loaded += 1;
  ctx.hashes.set(key, hash);
  return extracted.seeds;
}

/** Runs one stage of pitwall's own work on an answer: what it throws is that scope's failure, at that stage. */
function inStage<T>(stage: 'extract', work: () => T): T {
  try {
    return work();
  } catch (err) {
    throw new ScopeStageError(stage, err);
  }
}

/**
 * The `known` test for a request of this scope (see ApiClient.get), and the text digest of the
 * body it was last given, for processResponse. A body whose text digest equals the scope's
 * recorded hash holds the data already loaded; an endpoint without children then needs nothing
 * from it, and it is not even parsed. A parent's body is, for the seeds its children fan out from.
 */
export function knownBodyTest(
  ctx: ProcessContext,
  ep: Endpoint,
  query: string,
): { known: (body: Uint8Array) => boolean; digest: () => TextDigest | null } {
  const recorded = ctx.hashes.get(scopeKey(ep.name, query));
  const leaf = childrenOf(ep.name).length === 0;
  const salt = ctx.overrides?.endpoints.get(ep.name)?.digest;
  let last: TextDigest | null = null;
  return {
    known: (body) => {
      last = textDigest(body);
      return leaf && recorded !== undefined && last !== null && saltedHash(last.digest, salt) === recorded;
    },
    digest: () => last,
  };
}

/**
 * A response identical to the scope's last: counted, and its scope recorded as checked (in a
 * batch). Both the parsed path and the client's `kind: 'known'` end here.
 */
export async function recordUnchanged(ctx: ProcessContext, ep: Endpoint, query: string): Promise<void> {
  ctx.counters.scopes.unchanged += 1;
  await ctx.touches.add(ep.name, query);
}

/**
 * The response's rows without the dimension rows this run has already committed unchanged,
 * which count as seen again without a trip to the database. A dimension table some scope of the
 * response covers keeps every row, since the scope's deletes are judged from its rows.
 */
function withoutKnownDimensions(ctx: ProcessContext, extracted: Extracted): { toLoad: Extracted; known: Map<WarehouseTableName, number> } {
  const known = new Map<WarehouseTableName, number>();
  if (!ctx.dimensions) return { toLoad: extracted, known };
  const rows = { ...extracted.rows };
  for (const table of DIMENSION_TABLES) {
    const all = rows[table];
    if (!all?.length || extracted.scopes.some((s) => s.table === table)) continue;
    const fresh = ctx.dimensions.fresh(table, all);
    rows[table] = fresh.rows;
    known.set(table, fresh.known);
  }
  return { toLoad: { ...extracted, rows }, known };
}

/**
 * Dimension rows another transaction of this run committed while this one ran (two responses
 * carrying one driver at once): the database found them identical, as stored by that one, and
 * counted them unchanged; they are seen again. Called after COMMIT, before `remember`.
 */
function countLateRepeats(ctx: ProcessContext, toLoad: Extracted, committed: RunCounters): void {
  if (!ctx.dimensions) return;
  for (const table of DIMENSION_TABLES) {
    const rows = toLoad.rows[table];
    const counts = committed.tables[table];
    // Only rows the database found identical can be late repeats: most responses have none.
    if (!rows?.length || !counts?.unchanged) continue;
    const late = Math.min(ctx.dimensions.fresh(table, rows).known, counts.unchanged);
    counts.unchanged -= late;
    counts.seenAgain += late;
  }
}

/** The request a response answered, as `load` writes it. */
interface LoadedScope {
  query: string;
  /** The scope's hash (overrides included) and the body's own, for sync_state and the kept body. */
  hash: string;
  bodyHash: string;
}

async function load(
  client: pg.PoolClient,
  { runId, source, written }: Pick<ProcessContext, 'runId' | 'source' | 'written'>,
  ep: Endpoint,
  params: Params,
  scope: LoadedScope,
  extracted: Extracted,
  kept: { body: KeptBody; versions: number } | null,
): Promise<RunCounters> {
  const local = new RunCounters();
  const { query } = scope;
  // First, so that a first load (no sync_state row yet) is known before anything is written;
  // it also clears the scope's earlier field errors, so this response's are inserted after it.
  const at = { runId, source, endpoint: ep.name, params: query };
  const first = await recordScopeSuccess(client, { ...at, responseHash: scope.hash, itemCount: extracted.itemCount });
  for (const table of LOAD_ORDER) {
    const rows = extracted.rows[table];
    if (!rows?.length) continue;
    // A dimension row (a driver) is written by many scopes, so even a first scope may find it stored.
    const dimension = DIMENSION_TABLES.has(table);
    // A dimension row met again is told by the run's DimensionCache instead (countLateRepeats).
    const sameRun = dimension || !written ? undefined : () => written.has(table);
    const options = { runId, source, compareRaw: !dimension, firstLoad: first && !dimension, ...(sameRun ? { sameRun } : {}) };
    const counts = await upsertRows(client, warehouseTables[table], rows, options);
    // Before COMMIT: another transaction of the run that waited on one of these rows asks after
    // this one has committed; a table marked by a transaction that then rolls back costs only a
    // statement that finds nothing of this run.
    if (counts.inserted + counts.updated > 0) written?.add(table);
    local.add(table, counts);
  }
  for (const s of extracted.scopes) {
    // A first load of a request has nothing stored that its response could lack, when only
    // that request writes the scope's rows.
    if (first && s.byRequest) continue;
    const present = extracted.rows[s.table] ?? [];
    const deleted = await markMissingDeleted(client, warehouseTables[s.table], s.where, present, { runId, source });
    local.add(s.table, { deleted });
  }
  if (ep.cancelsEvents) await cascadeOrphanedEvents(client, requestKey(ep, params, 'schedule_id'), { runId, source }, local);
  // Duplicates are kept beside the rejects (their reasons say what they copy) but counted apart.
  await insertRejects(client, at, extracted.duplicates.length ? [...extracted.rejects, ...extracted.duplicates] : extracted.rejects);
  local.add(ep.rejectTable, { rejected: extracted.rejects.length });
  for (const d of extracted.duplicates) local.add(d.table, { duplicates: 1 });
  for (const e of extracted.fieldErrors) local.add(e.table, { fieldErrors: 1 });
  await insertFieldErrors(client, at, extracted.fieldErrors);
  if (kept) await keepResponse(client, { ...at, endpoint: ep.name, responseHash: scope.bodyHash }, kept.body, kept.versions);
  // Last, so the run's row is locked only from here to COMMIT.
  await fenceRun(client, runId);
  return local;
}
