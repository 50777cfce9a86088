import type { ApiClient } from '../api/client.js';
import { UpstreamDownError } from '../api/errors.js';
import { buildUrl, canonicalQuery } from '../api/query.js';
import { unreachableMessage } from '../api/unreachable.js';
import type { ProcessPace } from '../coordination/pace.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import type { Logger } from '../log.js';

import { classifyBadBody } from './bad-body.js';
import { rowsWritten, type RunCounters } from './counters.js';
import { DimensionCache } from './dimension-cache.js';
import { childrenOf, type Endpoint, type Params } from './endpoints.js';
import type { Seed } from './extract/types.js';
import { jobPhases, type JobName, type JobPhase } from './jobs.js';
import { keptSeeds } from './kept-seeds.js';
import { KEY_REFUSED_MESSAGE } from './key-refusal.js';
import { knownBodyTest, processResponse, recordUnchanged, type ProcessContext } from './process-response.js';
import { failureAnswer, RootAnswers, type RootAnswer } from './root-answers.js';
import { createRunClient } from './run-client.js';
import { withPace } from './run-pace.js';
import { progressLine } from './run-progress.js';
import { runInShell, thrownOutcome, type RunContext, type RunOutcome } from './run-shell.js';
import { describeScopeFailure, isScopeFailure, type ScopeStage } from './scope-failure.js';
import { loadDrift } from './shape/load.js';
import { driftCounts } from './shape/report.js';
import { ShapeTracker } from './shape/tracker.js';
import { continueStoppedRun, type Continuation } from './sql/continuation.js';
import { insertBodyReject } from './sql/rejects.js';
import { discountRunFailures, loadResponseHashes, loadSetAside, recordScopeFailure, scopeKey, ScopeTouches } from './sql/sync-state.js';
import type { RunSummary } from './summary.js';
import type { SyncDeps } from './types.js';
import { walk, type WalkPlan } from './walk.js';

export type { RunSummary } from './summary.js';

export interface SyncOptions {
  job?: JobName;
  trigger?: 'manual' | 'cron' | 'catch-up';
  /**
   * Drain: aborting stops the run starting requests (retries and rate-limit waits included) and
   * visits, lets the ones in flight finish and commit, and ends the run `interrupted`.
   */
  drain?: AbortSignal;
  /** Abort: like drain, and also cancels in-flight requests at once. */
  signal?: AbortSignal;
  /** Replaces the job's own plan (tests, and jobs that compute their plan first). */
  plan?: WalkPlan;
  onProgress?: (p: { discovered: number; done: number; counters: RunCounters }) => void;
  /** Visit the scopes set aside too (`pitwall sync --retry-set-aside`), instead of skipping them until their time. */
  retrySetAside?: boolean;
  /**
   * The caller says a cause common to the whole run (a refused key, an unreachable upstream) in
   * its own line, as `pitwall sync` does on stderr: the run logs it at debug instead of error.
   */
  callerSaysCause?: boolean;
  /** Start afresh even when the job's last run stopped before its end (`pitwall sync --fresh`). */
  fresh?: boolean;
}

/**
 * Visits (request, then load) the walk runs at once per upstream request slot. With 2, a slot's
 * next request is out while the previous response loads; the visits waiting on the database
 * hold no request slot, and at most this many responses per slot are held in memory.
 */
const VISITS_PER_REQUEST_SLOT = 2;

/**
 * One run of a job: takes the job's advisory lock (or records a `skipped` run), walks the
 * upstream, loads each response in its own transaction, and records the outcome in
 * pitwall.sync_runs (the run shell's part). A scope that fails is recorded on its sync_state row
 * and the walk goes on; only an upstream that is plainly down, a database that is gone, or an
 * abort ends it early.
 */
export async function runSync(deps: SyncDeps, options: SyncOptions = {}): Promise<RunSummary> {
  const job = options.job ?? 'full';
  const spec = {
    source: deps.source ?? DEFAULT_SOURCE,
    job,
    trigger: options.trigger ?? 'manual',
    locks: [job],
    busy: 'another process is running this job; skipped',
    noun: 'run',
    shapes: deps.config.shapes ?? null,
    drain: options.drain,
    signal: options.signal,
  } as const;
  return runInShell({ ...deps, lockDatabaseUrl: deps.config.lockDatabaseUrl }, spec, (run) => withPace(deps, run, (pace) => execute(deps, options, job, run, pace)));
}

/** What a sync's visits share: the load context, the client, the roots' answers. */
interface SyncRun {
  deps: SyncDeps;
  run: RunContext;
  ctx: ProcessContext;
  api: ApiClient;
  roots: RootAnswers;
  /** Scopes set aside (by scope key) that this run skips: none when it retries them. */
  setAside: ReadonlyMap<string, Date>;
  /** The stopped run this one continues, or null for a fresh run. */
  continuation: Continuation | null;
  /** Scopes the earlier parts of a continued run finished, by scope key: none for a fresh run. */
  finished: ReadonlySet<string>;
  progress: () => void;
  /** How the run's common cause is logged: error, or debug when the caller prints it (SyncOptions.callerSaysCause). */
  sayCause: (fields: object, message: string) => void;
}

/** A sync's work: make its context, walk its phases, decide its outcome, add the report's extras. */
async function execute(deps: SyncDeps, options: SyncOptions, job: JobName, run: RunContext, pace: ProcessPace): Promise<RunOutcome> {
  const sync = await syncContext(deps, options, run, pace);
  let outcome: RunOutcome;
  try {
    const cutShort = await walkPhases(sync, phasesOf(options, job));
    // Success needs the lock to have been held throughout: a loss while no visit was in flight
    // throws only here.
    run.held();
    outcome = { ...decideOutcome(sync, cutShort), walkDone: cutShort === 0 };
    sync.roots.settle(outcome.extra?.keyRefused === true || outcome.extra?.upstreamUnreachable === true);
    if (outcome.extra?.upstreamUnreachable === true) await discountFailures(sync);
  } catch (err) {
    // An upstream that never answered can end the walk early too: the client gives up on it.
    const unreached = err instanceof UpstreamDownError && !run.stopping.aborted ? unreachableOutcome(sync) : null;
    outcome = unreached ?? thrownOutcome(run, err, 'run');
    sync.roots.settle(unreached !== null);
    if (err instanceof UpstreamDownError) await discountFailures(sync);
    // The scopes found unchanged before the end were checked all the same.
    await sync.ctx.touches.flush().catch((e: unknown) => run.logger.warn({ err: String(e) }, 'could not record unchanged scopes'));
    await flushShapes(sync);
  }
  run.counters.unknownFields = sync.ctx.shapes?.unmodelledCounts() ?? {};
  run.counters.missingFields = sync.ctx.shapes?.missingFields() ?? [];
  const drift = await driftForObserver(deps, run.logger);
  const continues = sync.continuation && { runId: sync.continuation.continues, requestsBefore: sync.continuation.requestsBefore };
  return { ...outcome, extra: { ...outcome.extra, ...(drift ? { drift } : {}), ...(continues ? { continues } : {}) } };
}

async function syncContext(deps: SyncDeps, options: SyncOptions, run: RunContext, pace: ProcessPace): Promise<SyncRun> {
  const { runId, source, job, counters, logger, scopes } = run;
  const continuation = options.fresh ? null : await continueStoppedRun(deps.pool, { runId, source, job, withinHours: deps.config.continueHours });
  const { hashes, finished } = await loadResponseHashes(deps.pool, source, continuation?.parts);
  if (continuation) {
    logger.info({ continues: continuation.continues, finished: finished.size }, `continuing run ${continuation.continues}, which stopped before its end: ${finished.size} scope(s) it finished are not asked for again`);
  }
  const ctx: ProcessContext = {
    pool: deps.pool,
    runId,
    source,
    counters,
    hashes,
    touches: new ScopeTouches(deps.pool, runId, source),
    dimensions: new DimensionCache(),
    written: new Set(),
    keepResponses: deps.config.keepResponses,
    shapes: new ShapeTracker(deps.pool, { runId, source }, logger, [deps.config.apiKey], deps.config.shapes ?? null),
    ...(deps.config.shapes ? { overrides: deps.config.shapes } : {}),
    logger,
    signal: run.signal,
  };
  return {
    deps,
    run,
    ctx,
    api: createRunClient(deps, { source, counters, logger, halt: run.halt, held: run.held, pace }),
    roots: new RootAnswers(),
    setAside: options.retrySetAside ? new Map() : await loadSetAside(deps.pool, source),
    finished,
    continuation,
    progress: () => options.onProgress?.({ discovered: scopes.total, done: scopes.done, counters }),
    sayCause: (fields, message) => (options.callerSaysCause ? logger.debug(fields, message) : logger.error(fields, message)),
  };
}

/** The job's phases, or the one plan the caller gave. */
function phasesOf(options: SyncOptions, job: JobName): JobPhase[] {
  return options.plan ? [{ name: 'plan', plan: async () => options.plan ?? null }] : jobPhases(job);
}

/** Walks each phase's plan in turn; returns how many scopes a stop left unvisited (phases not begun count one). */
async function walkPhases(sync: SyncRun, phases: JobPhase[]): Promise<number> {
  const { deps, run } = sync;
  const planContext = {
    pool: deps.pool,
    source: run.source,
    now: (deps.now ?? (() => new Date()))(),
    settleDays: deps.config.settleDays,
    timezone: deps.config.timezone,
    logger: run.logger,
  };
  let cutShort = 0;
  for (const phase of phases) {
    if (run.halt.aborted) return cutShort + 1;
    const plan = await phase.plan(planContext);
    if (!plan) continue;
    sync.roots.addRoots(plan.roots);
    run.logger.debug({ phase: phase.name, roots: plan.roots.length }, 'walking');
    const result = await walk(plan, {
      concurrency: deps.config.concurrency * VISITS_PER_REQUEST_SLOT,
      signal: run.halt,
      visit: (ep, params) => visit(sync, ep, params),
      onDiscovered: () => {
        run.scopes.total += 1;
        sync.progress();
      },
    });
    cutShort += result.cutShort;
    // The next phase may plan from sync_state (the live job's stale events do).
    await sync.ctx.touches.flush();
    await flushShapes(sync);
    if (result.cutShort > 0) continue;
    const line = progressLine(run.scopes, run.counters.requests, rowsWritten(run.counters.tables), performance.now() - run.started);
    run.logger.info({ phase: phase.name, ...line.fields }, `phase ${phase.name} done: ${line.text}`);
  }
  return cutShort;
}

/** A walk that returned: interrupted when a stop cut it short, else judged by its scopes. */
function decideOutcome(sync: SyncRun, cutShort: number): RunOutcome {
  const { counters, logger, stopping } = sync.run;
  const { sayCause } = sync;
  if (cutShort > 0 && stopping.aborted) {
    logger.debug({ cutShort }, 'run interrupted');
    return { status: 'interrupted', error: 'stopped before the walk was complete' };
  }
  if (sync.roots.keyRefused(counters.scopes.loaded + counters.scopes.unchanged)) {
    sayCause({ invalid: counters.scopes.invalid, failed: counters.scopes.failed }, KEY_REFUSED_MESSAGE);
    return { status: 'failed', error: KEY_REFUSED_MESSAGE, extra: { keyRefused: true } };
  }
  const unreachable = unreachableOutcome(sync);
  if (unreachable) return unreachable;
  if (counters.scopes.failed > 0 || counters.scopes.invalid > 0) {
    const error = `${counters.scopes.failed} scope(s) failed and ${counters.scopes.invalid} answered RequestValid 0; see pitwall.sync_state`;
    return { status: 'failed', error };
  }
  return { status: 'succeeded' };
}

/** A run none of whose root requests got an HTTP answer, and that loaded nothing: one line naming MRP_API_BASE_URL. */
function unreachableOutcome(sync: SyncRun): RunOutcome | null {
  const { counters } = sync.run;
  const cause = sync.roots.unreachable(counters.scopes.loaded + counters.scopes.unchanged);
  if (!cause) return null;
  const error = unreachableMessage(sync.deps.config.apiBaseUrl, cause);
  sync.sayCause({ failed: counters.scopes.failed }, error);
  return { status: 'failed', error, extra: { upstreamUnreachable: true } };
}

/** A run that ended with the upstream down says nothing about its failed scopes: none moves toward being set aside. */
async function discountFailures(sync: SyncRun): Promise<void> {
  const { run } = sync;
  await discountRunFailures(sync.deps.pool, run.source, run.runId).catch((e: unknown) => run.logger.warn({ err: String(e) }, 'could not discount the failures of a run the upstream was down for'));
}

/** The shape report is evidence for a person: failing to write it never fails the run. */
async function flushShapes(sync: SyncRun): Promise<void> {
  await sync.ctx.shapes?.flush().catch((err: unknown) => sync.run.logger.warn({ err: String(err) }, 'could not record response shapes'));
}

/** One scope: request, then load; a scope that fails is recorded and the walk goes on. */
async function visit(sync: SyncRun, ep: Endpoint, params: Params): Promise<Seed[]> {
  const { run, ctx } = sync;
  const { counters, runId, source } = run;
  const query = canonicalQuery(params);
  if (sync.setAside.has(scopeKey(ep.name, query))) {
    counters.scopes.setAside += 1;
    return [];
  }
  // A fresh run has nothing carried: no await on its path.
  const carried = sync.finished.size > 0 ? await carriedScope(sync, ep, params, query) : null;
  if (carried) {
    counters.scopes.carried += 1;
    run.scopes.done += 1;
    sync.progress();
    return carried.seeds;
  }
  // A visit cut short by a stop is no answer of its root's either way.
  let answer: RootAnswer | null = { kind: 'accepted' };
  // Where the visit is, for a failure that does not say so itself.
  let stage: ScopeStage = 'parse';
  let release = (): void => undefined;
  try {
    const body = knownBodyTest(ctx, ep, query);
    const res = await sync.api.get(ep.path, params, { signal: run.signal, known: body.known, holdBody: true });
    if (res.kind === 'known') {
      counters.maskedValues += res.maskedValues;
      // The client says known only for a body whose digest equals the scope's recorded hash.
      await recordUnchanged(ctx, ep, query);
      return [];
    }
    if (res.kind === 'invalid') {
      answer = { kind: 'refused' };
      counters.scopes.invalid += 1;
      const at = { runId, source, endpoint: ep.name, params: query };
      await recordScopeFailure(sync.deps.pool, { ...at, status: 'invalid', error: res.reason, stage: 'check', kind: 'invalid', asideAfterRuns: 0, setAsideHours: 0 });
      warnOrHold(sync, ep, query, { kind: 'refused' }, { endpoint: ep.name, params: query, reason: res.reason }, 'upstream answered RequestValid 0');
      return [];
    }
    // The body's bytes stay in the process's budget until its rows are loaded.
    release = res.release;
    if (res.repaired) counters.repairedBodies += 1;
    counters.maskedValues += res.maskedValues;
    stage = 'check';
    // A body re-serialised to mask an escaped key is hashed from its parsed value, as a rebuild would.
    return await processResponse(ctx, ep, params, query, res.body, res.reserialized ? null : body.digest(), { text: res.text });
  } catch (err) {
    // Stopped (drained, aborted, or another branch failed): not this scope's fault; record nothing.
    if (run.halt.aborted) {
      answer = null;
      throw err;
    }
    const failed = failureAnswer(err);
    answer = failed;
    if (!isScopeFailure(err)) {
      run.fail(err);
      throw err;
    }
    await recordFailure(sync, ep, params, err, stage, failed);
    return [];
  } finally {
    release();
    if (answer) sync.roots.record(ep, query, answer);
    run.scopes.done += 1;
    sync.progress();
  }
}

/**
 * A scope an earlier part of a continued run finished: not asked for again. A leaf needs nothing
 * more; a parent's children come from its kept body, the very version that part loaded or found
 * unchanged (the hash on record still names it, so no other run has loaded the scope since), so
 * no child of a version this run did not treat as done is visited. A root is always asked again:
 * new scopes appear there. A parent whose body is not kept as recorded is asked again too.
 */
async function carriedScope(sync: SyncRun, ep: Endpoint, params: Params, query: string): Promise<{ seeds: Seed[] } | null> {
  const key = scopeKey(ep.name, query);
  if (!sync.finished.has(key) || ep.parent === null) return null;
  if (childrenOf(ep.name).length === 0) return { seeds: [] };
  // The hash on record: a scope is visited once per walk, so none of this run's loads changed it.
  const hash = sync.ctx.hashes.get(key)!;
  const seeds = await keptSeeds(sync.ctx, ep, params, query, hash);
  return seeds && { seeds };
}

/** A warning about a scope; one about a root that may share the run's one cause waits for the outcome (RootAnswers.hold), logged at debug meanwhile. */
function warnOrHold(sync: SyncRun, ep: Endpoint, query: string, answer: RootAnswer, fields: object, message: string): void {
  const { logger } = sync.run;
  if (sync.roots.hold(ep, query, answer, () => logger.warn(fields, message))) logger.debug(fields, message);
  else logger.warn(fields, message);
}

/** A scope's failure: counted, logged in one line, recorded on its sync_state row (set aside when it keeps failing), a bad body kept. */
async function recordFailure(sync: SyncRun, ep: Endpoint, params: Params, err: unknown, stage: ScopeStage, answer: RootAnswer): Promise<void> {
  const { deps, run } = sync;
  const query = canonicalQuery(params);
  const at = { runId: run.runId, source: run.source, endpoint: ep.name, params: query };
  const failure = describeScopeFailure(err, { endpoint: ep.name, shownUrl: buildUrl(deps.config.apiBaseUrl, ep.path, params), stage });
  run.counters.scopes.failed += 1;
  const setAsideUntil = await recordScopeFailure(deps.pool, {
    ...at,
    status: 'error',
    error: failure.message,
    stage: failure.stage,
    kind: failure.kind,
    asideAfterRuns: failure.asideAfterRuns,
    setAsideHours: deps.config.setAsideHours,
  });
  const fields = { endpoint: ep.name, params: query, stage: failure.stage, kind: failure.kind, ...(setAsideUntil ? { setAsideUntil } : {}) };
  warnOrHold(sync, ep, query, answer, fields, `scope failed: ${failure.message}${setAsideUntil ? `; set aside until ${setAsideUntil.toISOString()}` : ''}`);
  const badBody = classifyBadBody(err);
  if (badBody) {
    await insertBodyReject(deps.pool, at, failure.message, badBody.snippet);
    run.counters.add(ep.rejectTable, { rejected: 1 });
  }
}

/**
 * The warehouse's shape report as path counts, read only for a watcher (the worker's metrics
 * gauge): a plain `pitwall sync` has no use for it. Undefined when it could not be read.
 */
async function driftForObserver(deps: SyncDeps, logger: Logger): Promise<RunSummary['drift']> {
  if (!deps.observer?.runFinished) return undefined;
  return loadDrift(deps.pool, deps.config.shapes ?? null, [deps.source ?? DEFAULT_SOURCE]).then(
    (report) => driftCounts(report),
    (err: unknown) => void logger.warn({ err: String(err) }, 'could not read the shape report'),
  );
}
