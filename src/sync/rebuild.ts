import pLimit from 'p-limit';

import { maskEscapedSecrets, maskSecretsInText } from '../api/mask-secrets.js';
import { parseJson } from '../api/parse-json.js';
import { canonicalQuery } from '../api/query.js';
import type { Config } from '../config.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { jsonText } from '../exact-number.js';


import { itemsOf } from './bad-body.js';
import { DimensionCache } from './dimension-cache.js';
import { childrenOf, endpoint, ENDPOINTS, type Endpoint, type EndpointName, type Params } from './endpoints.js';
import { JOB_NAMES } from './jobs.js';
import { compressBody, decompressBody } from './kept-body.js';
import { processResponse, type ProcessContext } from './process-response.js';
import { runInShell, thrownOutcome, type RunContext, type RunOutcome } from './run-shell.js';
import { isScopeFailure } from './scope-failure.js';
import { latestResponses, replaceKeptBody, type KeptResponse } from './sql/responses.js';
import type { RunScopes } from './sql/sync-runs.js';
import { ScopeTouches } from './sql/sync-state.js';
import type { RunSummary } from './summary.js';
import type { RunShellDeps } from './types.js';

export interface RebuildDeps extends Omit<RunShellDeps, 'observer'> {
  config: Pick<Config, 'concurrency' | 'shapes' | 'apiKey'>;
}

export interface RebuildOptions {
  /** Endpoints whose tables are rebuilt; every endpoint when absent or empty. */
  endpoints?: readonly EndpointName[];
  /** Drain: no new scope starts; the ones loading commit, and the run ends `interrupted`. */
  drain?: AbortSignal;
  /** Abort: like drain, and also cancels the transactions in flight. */
  signal?: AbortSignal;
  /** Kept bodies read per query (a keyset page). */
  pageSize?: number;
}

/**
 * A rebuild holds every sync job's lock, so no sync writes the tables while they are re-derived
 * (a sync that starts meanwhile finds its lock held and skips), and no second rebuild runs.
 * Each lock holds a connection of the pool (on PostgreSQL), so the pool needs that many more.
 */
export const REBUILD_LOCKS = JOB_NAMES;

/**
 * `pitwall rebuild`: re-derives the typed tables from the bodies kept in pitwall.responses with
 * the current schemas and extractors, sending nothing upstream. Each scope's newest kept body goes
 * through the sync's own load path (processResponse) in one transaction, with the unchanged-body
 * skip bypassed, and the scope records the hash its body was kept with, so the next sync still
 * recognises an unchanged body. The run is recorded in pitwall.sync_runs as job `rebuild`.
 */
export async function runRebuild(deps: RebuildDeps, options: RebuildOptions = {}): Promise<RunSummary> {
  const spec = {
    source: deps.source ?? DEFAULT_SOURCE,
    job: 'rebuild',
    trigger: 'manual',
    locks: REBUILD_LOCKS,
    busy: 'a sync or another rebuild is running; skipped',
    noun: 'rebuild',
    shapes: deps.config.shapes ?? null,
    drain: options.drain,
    signal: options.signal,
  } as const;
  return runInShell(deps, spec, (run) => rebuild(deps, options, run));
}

/** A rebuild's work: every selected scope's newest kept body loaded, then its outcome. */
async function rebuild(deps: RebuildDeps, options: RebuildOptions, run: RunContext): Promise<RunOutcome> {
  const ctx: ProcessContext = {
    pool: deps.pool,
    runId: run.runId,
    source: run.source,
    counters: run.counters,
    // No recorded hashes: every kept body is loaded, none skipped as unchanged.
    hashes: new Map(),
    touches: new ScopeTouches(deps.pool, run.runId, run.source),
    dimensions: new DimensionCache(),
    written: new Set(),
    logger: run.logger,
    signal: run.signal,
    ...(deps.config.shapes ? { overrides: deps.config.shapes } : {}),
  };
  try {
    // A body kept before pitwall masked keys in bodies may still hold one: masked as it is read back.
    const secrets = deps.config.apiKey ? [deps.config.apiKey] : [];
    const pace = { concurrency: deps.config.concurrency, pageSize: options.pageSize ?? 200, halt: run.halt, scopes: run.scopes, secrets };
    await rebuildScopes(ctx, selection(options.endpoints), pace);
    run.held();
  } catch (err) {
    return thrownOutcome(run, err, 'rebuild');
  }
  if (run.stopping.aborted) return { status: 'interrupted', error: 'stopped before every kept response was loaded' };
  if (run.counters.scopes.failed > 0) {
    return { status: 'failed', error: `${run.counters.scopes.failed} kept response(s) could not be loaded; see the log` };
  }
  return { status: 'succeeded' };
}

/** The endpoints to load, and those only read for their seeds (ancestors of a loaded one). */
function selection(names: readonly EndpointName[] | undefined): { load: Set<EndpointName>; read: Set<EndpointName> } {
  const load = new Set(names?.length ? names.map((n) => endpoint(n).name) : ENDPOINTS.map((e) => e.name));
  const read = new Set<EndpointName>();
  for (const name of load) {
    for (let e: Endpoint | null = endpoint(name); e; e = e.parent ? endpoint(e.parent) : null) read.add(e.name);
  }
  return { load, read };
}

/**
 * Endpoint by endpoint, parents before children (the order of ENDPOINTS), each scope's newest
 * kept body. A child scope is loaded only when a parent body loaded in this rebuild names it, as
 * a sync would only request it then: a body kept for an event since removed from its schedule
 * stays unread, and the event's rows stay marked deleted.
 */
async function rebuildScopes(
  ctx: ProcessContext,
  { load, read }: { load: Set<EndpointName>; read: Set<EndpointName> },
  run: { concurrency: number; pageSize: number; halt: AbortSignal; scopes: RunScopes; secrets: readonly string[] },
): Promise<void> {
  const limit = pLimit(run.concurrency);
  /** The child scopes the parents' bodies name, by child endpoint. */
  const named = new Map<EndpointName, Set<string>>();
  for (const ep of ENDPOINTS) {
    if (!read.has(ep.name)) continue;
    const wanted = ep.parent === null ? null : (named.get(ep.name) ?? new Set<string>());
    const children = childrenOf(ep.name).filter((c) => read.has(c.name));
    let found = 0;
    for (let after: string | null = null; ; ) {
      if (run.halt.aborted) return;
      const page = await latestResponses(ctx.pool, ctx.source, ep.name, after, run.pageSize);
      if (page.length === 0) break;
      after = page.at(-1)!.params;
      const scopes = page.filter((r) => wanted === null || wanted.has(r.params));
      found += scopes.length;
      run.scopes.total += scopes.length;
      // Settled, not raced: a fatal error ends the run only once the scopes loading beside it
      // have committed or rolled back.
      const done = await Promise.allSettled(
        scopes.map((kept) =>
          limit(async () => {
            if (run.halt.aborted) return;
            const seeds = await rebuildScope(ctx, ep, kept, load.has(ep.name), run.secrets);
            run.scopes.done += 1;
            for (const child of children) {
              let set = named.get(child.name);
              if (!set) named.set(child.name, (set = new Set()));
              for (const seed of seeds) set.add(canonicalQuery(child.params(seed)));
            }
          }),
        ),
      );
      const failure = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
      if (failure) throw failure.reason;
    }
    const missing = wanted === null ? (found === 0 ? 1 : 0) : wanted.size - found;
    if (missing > 0) ctx.logger.warn({ endpoint: ep.name, scopes: missing }, 'scopes with no kept response; a sync fetches them');
  }
}

/** Loads (or, for an endpoint only read, extracts the seeds of) one kept body. */
async function rebuildScope(ctx: ProcessContext, ep: Endpoint, kept: KeptResponse, loadIt: boolean, secrets: readonly string[]) {
  const params: Params = Object.fromEntries(new URLSearchParams(kept.params));
  try {
    const { text, masked } = maskSecretsInText(await decompressBody(kept.body, kept.encoding), secrets);
    const body = parseJson(text) as Record<string, unknown>;
    const escaped = maskEscapedSecrets(text, body, secrets);
    if (masked + escaped > 0) {
      ctx.counters.maskedValues += masked + escaped;
      // The kept body is cleaned too, not only the rows derived from it.
      await replaceKeptBody(ctx.pool, kept.responseId, await compressBody(escaped > 0 ? jsonText(body)! : text));
    }
    if (!loadIt) return ep.extract(itemsOf(ep, body), params, body, ctx.overrides?.endpoints.get(ep.name)).seeds;
    return await processResponse(ctx, ep, params, kept.params, body, null, { text, kept: { responseHash: kept.responseHash } });
  } catch (err) {
    if (!isScopeFailure(err)) throw err;
    ctx.counters.scopes.failed += 1;
    ctx.logger.warn({ endpoint: ep.name, params: kept.params, err: String(err) }, 'kept response could not be loaded; skipped');
    return [];
  }
}
