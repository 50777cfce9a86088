import { setTimeout as sleep } from 'node:timers/promises';

import type pg from 'pg';

import { BEAT_MS, STALE_AFTER_MS } from '../coordination/lease.js';
import { previousFire } from '../cron/previous-fire.js';
import type { Logger } from '../log.js';
import type { JobName } from '../sync/jobs.js';
import type { RunSummary } from '../sync/run.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { catchUpHistory } from './catch-up-history.js';
import { catchUpsToRun, coveredLastSuccess, decideCatchUp, type CatchUpDecision, type RunningRun } from './catch-up-plan.js';
import type { ScheduledJob } from './scheduler.js';

export interface CatchUpOptions {
  pool: pg.Pool;
  /** The source whose jobs are caught up. */
  source: string;
  logger: Logger;
  jobs: readonly ScheduledJob[];
  /** The zone the cron expressions are read in. */
  timezone: string;
  /**
   * Runs one job with trigger `catch-up`. `fire` names this catch-up: the schedule's last fire and
   * the failed catch-ups since the last success (catchingUpMessage reads it back for the log).
   */
  run: (job: JobName, fire: string) => Promise<Pick<RunSummary, 'status'>>;
  /** Whether a run of this process is going now: one of its own recorded running but not going is dead. */
  going?: (runId: number) => boolean;
}

export interface CatchUp {
  /** Settles when nothing is behind, a catch-up was interrupted, or stop() was called. */
  readonly done: Promise<void>;
  /** True while a full catch-up runs: live and season ticks wait for it. */
  fullRunning(): boolean;
  /** Ends a backoff wait at once; a catch-up already running is stopped by the worker's drain. */
  stop(): void;
}

/** How often a catch-up held up by a full running in another process looks again. */
const ELSEWHERE_POLL_MS = 5_000;

const iso = (d: Date | null | undefined) => d?.toISOString() ?? 'never';

/**
 * A catch-up's fire, ordered like the cron fires' timestamps: a later schedule fire, or one more
 * failed catch-up, sorts after the last.
 */
export const catchUpFire = (d: Extract<CatchUpDecision, { action: 'run' }>): string =>
  `${(d.lastFired ?? new Date(0)).toISOString()}#${String(d.failedCatchUps).padStart(6, '0')}`;

/** What the worker says as it runs a catch-up, read from its fire (catchUpFire). */
export function catchingUpMessage(job: JobName, fire: string): string {
  const [at = '', failed = '0'] = fire.split('#');
  const lastFired = new Date(at);
  const fired = Number.isNaN(lastFired.getTime()) || lastFired.getTime() === 0 ? 'schedule not fired yet' : `schedule last fired ${lastFired.toISOString()}`;
  const retries = Number(failed) > 0 ? `, after ${Number(failed)} failed catch-up(s)` : '';
  return `catching up: ${job}, ${fired}${retries}`;
}

/** Where the run a catch-up is left to goes on: this worker, or another process (a manual sync). */
function whereRunning(run: RunningRun): string {
  if (run.here) return `its run ${run.runId}, going in this worker`;
  const who = run.pid !== null ? `process ${run.pid}${run.host ? ` on ${run.host}` : ''}` : 'another process';
  return `its run ${run.runId}, going in ${who}`;
}

async function decide(options: CatchUpOptions): Promise<CatchUpDecision[]> {
  let history = await catchUpHistory(options.pool, options.source, options.going);
  // A dead run is marked first, so a catch-up that died counts as abandoned rather than as running.
  if (Object.values(history).some((h) => h?.running && !h.running.alive)) {
    const gone = Object.values(history).flatMap((h) => (h?.running?.gone ? [h.running.run.runId] : []));
    await markDeadRuns(options.pool, STALE_AFTER_MS, gone);
    history = await catchUpHistory(options.pool, options.source, options.going);
  }
  const now = new Date();
  return options.jobs.map(({ job, cron }) =>
    decideCatchUp(job, previousFire(cron, options.timezone, now), coveredLastSuccess(job, history), history[job], now, STALE_AFTER_MS),
  );
}

/**
 * At start, runs each job that is behind its schedule (never succeeded, or last succeeded before
 * the schedule last fired), full first; after a failed catch-up waits the backoff and looks
 * again, until nothing is behind. The schedules run alongside it from the start.
 */
export function startCatchUp(options: CatchUpOptions): CatchUp {
  const { logger } = options;
  const stopped = new AbortController();
  // Jobs this loop is done with: caught up, or running in another process (their run came back
  // skipped). A success is final even if the clocks of database and worker disagree about it.
  const settled = new Set<JobName>();
  // Jobs found running in another process (logged once).
  const elsewhere = new Set<JobName>();
  let full = false;

  const runOne = async (d: Extract<CatchUpDecision, { action: 'run' }>): Promise<Pick<RunSummary, 'status'>> => {
    // At debug: the worker's run says it catches up (catchingUpMessage) as it starts.
    logger.debug(
      { job: d.job, lastSuccess: d.lastSuccess?.toISOString() ?? null, lastFired: d.lastFired?.toISOString() ?? null },
      `catch-up of ${d.job} due: last success ${iso(d.lastSuccess)}, schedule last fired ${iso(d.lastFired)}`,
    );
    full = d.job === 'full';
    try {
      return await options.run(d.job, catchUpFire(d));
    } finally {
      full = false;
    }
  };

  /** One look and what follows from it: `done` when nothing is behind or the catch-up was interrupted. */
  const pass = async (): Promise<'done' | 'again'> => {
    const decisions = (await decide(options)).filter((d) => !settled.has(d.job));
    for (const d of decisions) {
      if (d.action !== 'elsewhere') continue;
      if (!elsewhere.has(d.job)) logger.info({ job: d.job, runId: d.run?.runId }, `catch-up of ${d.job} left to ${whereRunning(d.run)}`);
      elsewhere.add(d.job);
      // A full going elsewhere holds live and season up (catchUpsToRun): looked at again until it ends.
      if (d.job !== 'full') settled.add(d.job);
    }
    const due = catchUpsToRun(decisions);
    for (const d of due) {
      if (stopped.signal.aborted) return 'done';
      const summary = await runOne(d);
      if (summary.status === 'interrupted') return 'done';
      // A full's success covers live and season too (coveredLastSuccess): nothing is behind.
      if (d.job === 'full' && summary.status === 'succeeded') return 'done';
      if (summary.status === 'skipped' || summary.status === 'succeeded') settled.add(d.job);
    }
    if (due.length > 0) return 'again';
    const waits = decisions.filter((d): d is Extract<CatchUpDecision, { action: 'wait' }> => d.action === 'wait');
    if (decisions.some((d) => d.job === 'full' && d.action === 'elsewhere')) {
      await sleep(ELSEWHERE_POLL_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
      return 'again';
    }
    if (waits.length === 0) return 'done';
    for (const w of waits) {
      const fields = { job: w.job, failedCatchUps: w.failedCatchUps, retryAt: w.retryAt.toISOString() };
      if (w.reason === 'backoff') {
        logger.warn(fields, `catch-up of ${w.job} backing off after ${w.failedCatchUps} failed catch-up(s) since its last success; next try at ${w.retryAt.toISOString()}`);
      } else {
        logger.info(fields, `catch-up of ${w.job} waits for a run of it recorded running to be confirmed dead or alive; next look at ${w.retryAt.toISOString()}`);
      }
    }
    const until = Math.min(...waits.map((w) => w.retryAt.getTime()));
    await sleep(Math.max(0, until - Date.now()), undefined, { signal: stopped.signal }).catch(() => undefined);
    return 'again';
  };

  // A database that fails (a restart, a lost link) is the warehouse's trouble, not the upstream's:
  // the catch-up looks again at every beat until it answers, said once, with no back-off.
  const loop = async () => {
    let waiting = false;
    while (!stopped.signal.aborted) {
      try {
        if ((await pass()) === 'done') return;
        waiting = false;
      } catch (err) {
        if (stopped.signal.aborted) return;
        if (!waiting) logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'catch-up waits for the database; it looks again at every beat');
        waiting = true;
        await sleep(BEAT_MS, undefined, { signal: stopped.signal }).catch(() => undefined);
      }
    }
  };

  const done = loop();
  return { done, fullRunning: () => full, stop: () => stopped.abort() };
}
