import type pg from 'pg';

import { BEAT_MS } from '../coordination/lock-ids.js';
import type { Logger } from '../log.js';

import type { RunCounters } from './counters.js';
import { recordHeartbeat, recordHeartbeats, type RunScopes } from './sql/sync-runs.js';
import { buildSummary, type RunJob } from './summary.js';

/**
 * How often a running run writes its progress to its pitwall.sync_runs row. Short enough that a
 * display looks alive and a dead run is recognised within a minute; long enough that the UPDATE
 * costs nothing beside the run's own writes.
 */
export const HEARTBEAT_INTERVAL_MS = BEAT_MS;

/**
 * A running run whose heartbeat is older than this (and whose job lock is free) is dead. Three
 * intervals: one late beat (a busy pool, a slow commit) never makes a live run look dead.
 */
export const STALE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** What a heartbeat reads from its run, each time it beats. */
export interface RunFigures {
  runId: number;
  job: RunJob;
  /** performance.now() when the run started. */
  started: number;
  counters: RunCounters;
  /** Scopes finished so far, and known so far (the walk discovers scopes as it goes). */
  scopes: RunScopes;
}

export interface Heartbeat {
  /** Stops beating; resolves once a beat in flight has been written (or failed). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Writes the run's figures so far (totals, scopes done and known, the per-table summary with
 * status `running`) every `intervalMs`. A beat starts only after the previous one ended, so beats
 * never overlap, and a failed beat is a warning: progress reporting never fails a run.
 */
export function startHeartbeat(pool: pg.Pool, run: RunFigures, logger: Logger, intervalMs = HEARTBEAT_INTERVAL_MS): Heartbeat {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let beating: Promise<void> = Promise.resolve();

  const beat = async () => {
    const summary = buildSummary(run.runId, run.job, 'running', run.started, run.counters, undefined);
    try {
      await recordHeartbeat(pool, run.runId, run.counters.totals(), run.scopes, summary);
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not record the run heartbeat');
    }
  };

  const schedule = () => {
    timer = setTimeout(() => {
      beating = beat().then(() => {
        if (!stopped) schedule();
      });
    }, intervalMs);
    // The run keeps the process alive; a pending beat must not.
    timer.unref();
  };

  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await beating;
    },
  };
}

/** Where a run's heartbeat comes from: its own timer (startHeartbeat), or its process's beat (HeartbeatGroup). */
export type StartHeartbeat = (run: RunFigures, logger: Logger) => Heartbeat;

/**
 * The heartbeats of every run of one process, written together: one statement per beat, however
 * many runs are going (a worker with a hundred sources running beats as cheaply as with one).
 */
export class HeartbeatGroup {
  private readonly runs = new Set<RunFigures>();
  private beating: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    intervalMs = HEARTBEAT_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => {
      // A beat starts only after the previous one ended.
      this.beating = this.beating.then(() => this.beat());
    }, intervalMs);
    this.timer.unref();
  }

  readonly start: StartHeartbeat = (run) => {
    this.runs.add(run);
    return {
      stop: async () => {
        this.runs.delete(run);
        await this.beating;
      },
    };
  };

  private async beat(): Promise<void> {
    const beats = [...this.runs].map((run) => ({
      runId: run.runId,
      totals: run.counters.totals(),
      scopes: { ...run.scopes },
      summary: buildSummary(run.runId, run.job, 'running', run.started, run.counters, undefined),
    }));
    try {
      await recordHeartbeats(this.pool, beats);
    } catch (err) {
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), runs: beats.length }, 'could not record the runs\' heartbeat');
    }
  }

  /** Stops beating once the beat in flight has been written. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
  }
}
