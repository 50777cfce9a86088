import { setMaxListeners } from 'node:events';

import type pg from 'pg';

import { DatabaseError } from '../db/errors.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import type { Logger } from '../log.js';
import { REDACTED } from '../secrets.js';
import type { Shapes } from '../shapes/overrides.js';

import { RunCounters } from './counters.js';
import type { JobName } from './jobs.js';
import { openOwnSession } from './own-session.js';
import { isScopeDataError } from './scope-data-error.js';
import type { JobLock } from './sql/job-lock.js';
import { finishRun, insertRun, type RunScopes, type RunStatus } from './sql/sync-runs.js';
import { buildSummary, type RunJob, type RunSummary } from './summary.js';
import type { RunCoordination, RunShellDeps } from './types.js';

export interface RunSpec {
  /** The source the run works for: its rows, locks and sync_runs row are that source's. */
  source: string;
  job: RunJob;
  trigger: 'manual' | 'cron' | 'catch-up';
  /** The job locks the run holds throughout: its own job's, or every job's for a rebuild. */
  locks: readonly JobName[];
  /** Logged when one of those locks is held elsewhere and the run is recorded `skipped`. */
  busy: string;
  /** What the run calls itself in its last log line ("run finished", "rebuild finished"). */
  noun: string;
  /** Drain: nothing new starts; what is in flight finishes, and the run ends `interrupted`. */
  drain?: AbortSignal | undefined;
  /** Abort: like drain, and also cancels what is in flight. */
  signal?: AbortSignal | undefined;
  /** The `PITWALL_SHAPES` file the run derives its rows under, recorded on its row. */
  shapes?: Shapes | null | undefined;
}

/** What the shell hands the run's own work: its row, its figures and its stop signals. */
export interface RunContext {
  runId: number;
  source: string;
  job: RunJob;
  /** performance.now() when the run started. */
  started: number;
  /** Carries runId, source and job. */
  logger: Logger;
  counters: RunCounters;
  /** Scopes finished and known so far: the work counts them, the heartbeat reports them. */
  scopes: RunScopes;
  lock: JobLock;
  /** The caller asked the run to end (drain or abort). */
  stopping: AbortSignal;
  /** Nothing new may start: the caller is stopping, the lock was lost, or `fail` was called. */
  halt: AbortSignal;
  /** Cancels what is in flight: the caller's abort, a lost lock, or `fail`. */
  signal: AbortSignal;
  /** A fatal error in one branch of the work: stops the others at once. */
  fail(err: unknown): void;
  /** Throws, and fails the run, when its lease has run out: read before each request it sends. */
  held(): void;
}

/** How the work ended, and what it adds to the run's summary beyond the counters. */
export interface RunOutcome {
  status: RunStatus;
  error?: string | undefined;
  /** The work reached its end (a sync's walk visited every scope it found); absent: it did not. */
  walkDone?: boolean;
  extra?: Pick<RunSummary, 'drift' | 'keyRefused' | 'upstreamUnreachable' | 'databaseFailure' | 'continues'>;
}

/**
 * One run of a sync job or a rebuild, whatever its work: takes the run's job lock(s) on its
 * process's lock session (or records a `skipped` run), inserts the run's row, keeps its heartbeat
 * while `work` goes, and records the outcome and the figures in pitwall.sync_runs. The heartbeat
 * stops before the row is finished, and the lock is released only after, so no other process
 * sees a finished run's lock free while its row says running. A process that is not a worker
 * opens a lock session for the run (src/sync/own-session.ts) and closes it after.
 */
export async function runInShell(deps: RunShellDeps, spec: RunSpec, work: (run: RunContext) => Promise<RunOutcome>): Promise<RunSummary> {
  const started = performance.now();
  const own = deps.coordination ? undefined : await openOwnSession(deps.pool, deps.logger, { beatMs: deps.heartbeatMs, lockDatabaseUrl: deps.lockDatabaseUrl });
  const coordination = deps.coordination ?? own!;
  try {
    const lock = await coordination.tryJobLocks(spec.source, spec.locks, spec.job);
    if (!lock) return await skipped(deps, spec, started);
    try {
      return await runHolding(deps, spec, lock, coordination, started, work);
    } finally {
      await lock.release();
    }
  } finally {
    await own?.close();
  }
}

async function runHolding(
  deps: RunShellDeps,
  spec: RunSpec,
  lock: JobLock,
  coordination: Pick<RunCoordination, 'startHeartbeat'>,
  started: number,
  work: (run: RunContext) => Promise<RunOutcome>,
): Promise<RunSummary> {
  const runId = await insertRun(deps.pool, spec.source, spec.job, spec.trigger, 'running', spec.shapes ?? null);
  const run = runContext(deps, spec, runId, lock, started);
  if (spec.job !== 'rebuild') deps.observer?.runStarted?.({ runId, job: spec.job, source: spec.source });
  const heartbeat = coordination.startHeartbeat({ runId, job: spec.job, started, counters: run.counters, scopes: run.scopes, logger: run.logger });
  let outcome: RunOutcome;
  try {
    outcome = await work(run);
  } finally {
    heartbeat.stop();
  }
  const summary = await finish(deps.pool, run, started, outcome);
  if (summary.maskedValues > 0) {
    // The upstream echoes the key in its data: worth a look upstream, though nothing stored holds it.
    const { maskedValues } = summary;
    run.logger.warn({ maskedValues }, `${maskedValues} value(s) in the responses held the API key and were stored masked as ${REDACTED}`);
  }
  run.logger.info({ status: summary.status, requests: summary.requests, scopes: run.scopes.done, durationMs: summary.durationMs }, `${spec.noun} finished`);
  deps.observer?.runFinished?.(summary, { source: spec.source });
  return summary;
}

/** The outcome of work that threw: `interrupted` when the caller was stopping the run, `failed` otherwise. */
export function thrownOutcome(run: RunContext, err: unknown, noun: string): RunOutcome {
  const status: RunStatus = run.stopping.aborted ? 'interrupted' : 'failed';
  const error = err instanceof Error ? err.message : String(err);
  // A worker's stop says so in one line of its own; each run's line is then only for debugging.
  if (status === 'interrupted') run.logger.debug({ err: error }, `${noun} interrupted`);
  else run.logger.error({ err: error }, `${noun} failed`);
  // The database's failure (or a lost lease) is the warehouse's, never the upstream's: no back-off.
  const database = err instanceof DatabaseError && !isScopeDataError(err);
  return { status, error, ...(database ? { extra: { databaseFailure: true } } : {}) };
}

async function skipped(deps: RunShellDeps, spec: RunSpec, started: number): Promise<RunSummary> {
  const runId = await insertRun(deps.pool, spec.source, spec.job, spec.trigger, 'skipped');
  deps.logger.info({ runId, job: spec.job }, spec.busy);
  const summary = buildSummary(runId, spec.job, 'skipped', started, new RunCounters(), undefined);
  deps.observer?.runFinished?.(summary, { source: spec.source });
  return summary;
}

/**
 * The run's stop signals. `stopping` is the caller asking the run to end (drain or abort);
 * `halt` stops anything new from starting (that, a lost lock, or a fatal error); `signal` also
 * cancels what is in flight (the caller's abort, a lost lock, or a fatal error). A drain alone
 * never cancels what is in flight.
 */
function runContext(deps: RunShellDeps, spec: RunSpec, runId: number, lock: JobLock, started: number): RunContext {
  const fatal = new AbortController();
  // Losing the job lock (its connection dropped and another process took it) ends the run: it
  // could otherwise write beside another run of the job.
  lock.lost.addEventListener('abort', () => fatal.abort(lock.lost.reason), { once: true });
  if (lock.lost.aborted) fatal.abort(lock.lost.reason);
  const stopping = AbortSignal.any([spec.drain, spec.signal].filter((s): s is AbortSignal => s !== undefined));
  const halt = AbortSignal.any([stopping, fatal.signal]);
  const signal = spec.signal ? AbortSignal.any([spec.signal, fatal.signal]) : fatal.signal;
  // Each visit, request and load transaction in flight listens, and removes its listener when it
  // ends: up to a few per concurrency slot, past Node's default of 10 that warns of a leak.
  setMaxListeners(0, halt, signal);
  return {
    runId,
    source: spec.source,
    job: spec.job,
    started,
    // The single source of a warehouse without a sources file goes unnamed, as it always has.
    logger: deps.logger.child(spec.source === DEFAULT_SOURCE ? { runId, job: spec.job } : { runId, source: spec.source, job: spec.job }),
    counters: new RunCounters(),
    scopes: { done: 0, total: 0 },
    lock,
    stopping,
    halt,
    signal,
    fail: (err) => fatal.abort(err),
    held: () => {
      try {
        lock.held();
      } catch (err) {
        fatal.abort(err);
        throw err;
      }
    },
  };
}

async function finish(pool: pg.Pool, run: RunContext, started: number, outcome: RunOutcome): Promise<RunSummary> {
  const summary: RunSummary = { ...buildSummary(run.runId, run.job, outcome.status, started, run.counters, outcome.error), ...outcome.extra };
  const end = { status: outcome.status, error: outcome.error ?? null, walkDone: outcome.walkDone === true };
  if (await finishRun(pool, run.runId, end, run.counters.totals(), run.scopes, summary)) return summary;
  // Another process closed the row once the run was dead by the rule: what it wrote stands.
  const error = `the run's row was closed as abandoned by another process after its lease ran out; its outcome (${outcome.status}) is not recorded`;
  run.logger.warn({ status: outcome.status }, error);
  return { ...summary, status: 'abandoned', error };
}
