import type { JobName } from '../sync/jobs.js';

import { catchUpDelayMs } from './catch-up-delay.js';

/** What the warehouse says about one job, for deciding whether it catches up. */
export interface CatchUpHistory {
  /** End of its last successful run, any trigger, any process. */
  lastSuccess?: Date;
  /** Its catch-ups that failed or were abandoned since that success (all of them, if none). */
  failedCatchUps: number;
  /** Of those, the ones abandoned: their process died mid-run. */
  abandonedCatchUps?: number;
  /** When the latest of those ended (or started, when it never recorded an end). */
  lastFailedAt?: Date;
  /**
   * A run of it recorded `running`: its last sign of life, and whether it is alive by the rule on
   * dead runs (src/sync/sql/dead-runs.ts): its heartbeat is younger than STALE_AFTER_MS.
   */
  running?: {
    lastBeatAt: Date;
    alive: boolean;
    /** Its process is known gone: this machine's, and its pid is no longer here (goneHere). */
    gone?: boolean;
    run: RunningRun;
  };
}

/** A run recorded running: its id, and whether this process is the one running it. */
export interface RunningRun {
  runId: number;
  here: boolean;
  host: string | null;
  pid: number | null;
}

export type CatchUpDecision =
  | { job: JobName; action: 'none' }
  /** `failedCatchUps`: since the last success, so each retry after a failed catch-up differs. */
  | { job: JobName; action: 'run'; lastSuccess?: Date; lastFired: Date | null; failedCatchUps: number }
  /** A run of the job is going now (a manual sync, or a run of this worker's own): it will catch the job up. */
  | { job: JobName; action: 'elsewhere'; run: RunningRun }
  /**
   * `backoff`: after failed catch-ups. `unconfirmed`: a run recorded running whose lock is free
   * but whose heartbeat is fresh, so it cannot be told dead yet (a worker restarted at once after
   * a crash finds its own dead run so); by retryAt it is marked abandoned, or proves alive.
   */
  | { job: JobName; action: 'wait'; reason: 'backoff' | 'unconfirmed'; lastSuccess?: Date; lastFired: Date | null; failedCatchUps: number; retryAt: Date };

/**
 * live and season walk a subset of what full walks, so a full success counts as theirs too: after
 * a full catch-up they are caught up, and they do not catch up behind a full that is newer.
 */
export function coveredLastSuccess(job: JobName, history: Partial<Record<JobName, CatchUpHistory>>): Date | undefined {
  const own = history[job]?.lastSuccess;
  const full = job === 'full' ? undefined : history.full?.lastSuccess;
  if (!own) return full;
  return full && full > own ? full : own;
}

/**
 * Whether `job` runs now to catch up: it has never succeeded, or its last success is older than
 * its schedule's latest fire time (`lastFired`, null when the schedule has not fired). After
 * failed catch-ups it waits catchUpDelayMs() from the last one.
 */
export function decideCatchUp(
  job: JobName,
  lastFired: Date | null,
  lastSuccess: Date | undefined,
  history: CatchUpHistory | undefined,
  now: Date,
  staleAfterMs: number,
): CatchUpDecision {
  const behind = lastSuccess === undefined || (lastFired !== null && lastSuccess < lastFired);
  if (!behind) return { job, action: 'none' };
  const failedCatchUps = history?.failedCatchUps ?? 0;
  const running = history?.running;
  if (running?.alive) return { job, action: 'elsewhere', run: running.run };
  if (running && !running.gone) {
    // Alive a moment ago by the database's clock, dead by this machine's: looked at again a second
    // past staleness, so the two clocks never disagree on it.
    const retryAt = new Date(running.lastBeatAt.getTime() + staleAfterMs + 1000);
    if (retryAt > now) return { job, action: 'wait', reason: 'unconfirmed', lastSuccess, lastFired, failedCatchUps, retryAt };
  }
  // A first death is taken for the machine's (a worker killed, a host lost), and the job runs
  // again at once; one that dies again is taken for the run's own, and backs off like a failure.
  const counted = failedCatchUps - Math.min(1, history?.abandonedCatchUps ?? 0);
  const from = history?.lastFailedAt;
  if (counted > 0 && from) {
    const retryAt = new Date(from.getTime() + catchUpDelayMs(counted));
    if (retryAt > now) return { job, action: 'wait', reason: 'backoff', lastSuccess, lastFired, failedCatchUps, retryAt };
  }
  return { job, action: 'run', lastSuccess, lastFired, failedCatchUps };
}

/**
 * The catch-ups to run now, in order. A due full runs alone, and a full running in another
 * process, or whose dead run is yet to be confirmed, holds the others too: live and season wait
 * for it, since its success covers them. A full that is backing off holds nobody up.
 */
export function catchUpsToRun(decisions: readonly CatchUpDecision[]): Array<Extract<CatchUpDecision, { action: 'run' }>> {
  // A full going, or one whose run is yet to be confirmed dead (it will run again then), holds the others.
  if (decisions.some((d) => d.job === 'full' && (d.action === 'elsewhere' || (d.action === 'wait' && d.reason === 'unconfirmed')))) return [];
  const due = decisions.filter((d): d is Extract<CatchUpDecision, { action: 'run' }> => d.action === 'run');
  const full = due.find((d) => d.job === 'full');
  return full ? [full] : due;
}
