import type pg from 'pg';

import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import type { Logger } from '../log.js';
import { REDACTED } from '../secrets.js';
import type { Shapes } from '../shapes/overrides.js';

import { RunCounters } from './counters.js';
import { startHeartbeat } from './heartbeat.js';
import type { JobName } from './jobs.js';
import { markAbandoned, markDeadRuns } from './sql/dead-runs.js';
import { tryJobLocks, type JobLock } from './sql/job-lock.js';
import { finishRun, insertRun, type RunScopes, type RunStatus } from './sql/sync-runs.js';
import { buildSummary, type RunJob, type RunSummary } from './summary.js';
import type { RunShellDeps } from './types.js';

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
}

/** How the work ended, and what it adds to the run's summary beyond the counters. */
export interface RunOutcome {
  status: RunStatus;
  error?: string | undefined;
  extra?: Pick<RunSummary, 'drift' | 'keyRefused' | 'upstreamUnreachable'>;
}

/**
 * One run of a sync job or a rebuild, whatever its work: marks the runs of dead processes
 * abandoned, takes the run's job lock(s) (or records a `skipped` run), inserts the run's row,
 * keeps its heartbeat while `work` goes, and records the outcome and the figures in
 * pitwall.sync_runs. The heartbeat stops before the row is finished, and the lock is released
 * only after, so no other process sees a finished run's lock free while its row says running.
 */
export async function runInShell(deps: RunShellDeps, spec: RunSpec, work: (run: RunContext) => Promise<RunOutcome>): Promise<RunSummary> {
  const started = performance.now();
  const { coordination } = deps;
  // A worker marks dead runs when it takes a source over, not before each of its runs.
  if (!coordination) await markDeadRunsAtStart(deps);
  const lock = coordination ? await coordination.tryJobLocks(spec.source, spec.locks, spec.job) : await tryJobLocks(deps.pool, spec.source, spec.locks);
  if (!lock) return skipped(deps, spec, started);
  try {
    // The lock proves no live process owns a row of this job still marked running (the
    // worker's lock statement closes them itself).
    if (!coordination) await markAbandoned(deps.pool, spec.source, spec.job);
    const runId = await insertRun(deps.pool, spec.source, spec.job, spec.trigger, 'running', spec.shapes ?? null);
    const run = runContext(deps, spec, runId, lock);
    if (spec.job !== 'rebuild') deps.observer?.runStarted?.({ runId, job: spec.job, source: spec.source });
    const figures = { runId, job: spec.job, started, counters: run.counters, scopes: run.scopes };
    const heartbeat = coordination ? coordination.startHeartbeat(figures, run.logger) : startHeartbeat(deps.pool, figures, run.logger, deps.heartbeatMs);
    let outcome: RunOutcome;
    try {
      outcome = await work(run);
    } finally {
      await heartbeat.stop();
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
  } finally {
    await lock.release();
  }
}

/** The outcome of work that threw: `interrupted` when the caller was stopping the run, `failed` otherwise. */
export function thrownOutcome(run: RunContext, err: unknown, noun: string): RunOutcome {
  const status: RunStatus = run.stopping.aborted ? 'interrupted' : 'failed';
  const error = err instanceof Error ? err.message : String(err);
  run.logger.error({ err: error }, `${noun} ${status}`);
  return { status, error };
}

/** Housekeeping any command does: never a reason for the run itself not to go. */
async function markDeadRunsAtStart(deps: RunShellDeps): Promise<void> {
  try {
    const dead = await markDeadRuns(deps.pool);
    if (dead.length > 0) deps.logger.warn({ runs: dead }, 'runs whose process stopped reporting marked abandoned');
  } catch (err) {
    deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not check for dead runs');
  }
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
function runContext(deps: RunShellDeps, spec: RunSpec, runId: number, lock: JobLock): RunContext {
  const fatal = new AbortController();
  // Losing the job lock (its connection dropped and another process took it) ends the run: it
  // could otherwise write beside another run of the job.
  lock.lost.addEventListener('abort', () => fatal.abort(lock.lost.reason), { once: true });
  if (lock.lost.aborted) fatal.abort(lock.lost.reason);
  const stopping = AbortSignal.any([spec.drain, spec.signal].filter((s): s is AbortSignal => s !== undefined));
  return {
    runId,
    source: spec.source,
    job: spec.job,
    // The single source of a warehouse without a sources file goes unnamed, as it always has.
    logger: deps.logger.child(spec.source === DEFAULT_SOURCE ? { runId, job: spec.job } : { runId, source: spec.source, job: spec.job }),
    counters: new RunCounters(),
    scopes: { done: 0, total: 0 },
    lock,
    stopping,
    halt: AbortSignal.any([stopping, fatal.signal]),
    signal: spec.signal ? AbortSignal.any([spec.signal, fatal.signal]) : fatal.signal,
    fail: (err) => fatal.abort(err),
  };
}

async function finish(pool: pg.Pool, run: RunContext, started: number, outcome: RunOutcome): Promise<RunSummary> {
  const summary: RunSummary = { ...buildSummary(run.runId, run.job, outcome.status, started, run.counters, outcome.error), ...outcome.extra };
  await finishRun(pool, run.runId, outcome.status, run.counters.totals(), run.scopes, summary, outcome.error ?? null);
  return summary;
}
