import type { LockSession } from '../coordination/lock-session.js';
import type { Logger } from '../log.js';

import { rowsWritten, type RunCounters } from './counters.js';
import { progressLine } from './run-progress.js';
import { recordHeartbeats, type RunScopes } from './sql/sync-runs.js';
import { buildSummary, type RunJob } from './summary.js';

/** What a heartbeat reads from its run, each time it beats. */
export interface RunFigures {
  runId: number;
  job: RunJob;
  /** performance.now() when the run started. */
  started: number;
  counters: RunCounters;
  /** Scopes finished so far, and known so far (the walk discovers scopes as it goes). */
  scopes: RunScopes;
  /** The run's own logger (its id, job and source bound), for its progress lines. */
  logger?: Logger;
}

export interface HeartbeatOptions {
  /**
   * Each run's progress is logged at info about this often, at a beat (a worker's: a long run
   * would otherwise be silent between "catching up" and "run finished"); never when absent.
   */
  progressEveryMs?: number;
  /** The clock progress is timed by (performance.now()); tests inject one. */
  now?: () => number;
}

export interface Heartbeat {
  /** The run beats no more (call before its row is finished). */
  stop(): void;
}

/**
 * The heartbeats of every run of one process, written together by the process's beat on its lock
 * session: one statement per beat, however many runs are going. Written there, and nowhere else,
 * a heartbeat proves that its process held its lease when it was written, which is what lets the
 * rule on dead runs (src/sync/sql/dead-runs.ts) trust its age.
 */
export class HeartbeatGroup {
  private readonly runs = new Set<RunFigures>();
  /** When each run's progress was last logged (its start, before the first line). */
  private readonly logged = new WeakMap<RunFigures, number>();

  constructor(
    private readonly logger: Logger,
    private readonly options: HeartbeatOptions = {},
  ) {}

  /** Runs going now. */
  get size(): number {
    return this.runs.size;
  }

  start(run: RunFigures): Heartbeat {
    this.runs.add(run);
    return { stop: () => void this.runs.delete(run) };
  }

  /** Writes every going run's figures so far; a failed write is a warning (the lease decides what a lost session means). */
  async write(session: LockSession): Promise<void> {
    if (this.runs.size === 0) return;
    const beats = [...this.runs].map((run) => ({
      runId: run.runId,
      totals: run.counters.totals(),
      scopes: { ...run.scopes },
      summary: buildSummary(run.runId, run.job, 'running', run.started, run.counters, undefined),
    }));
    try {
      await recordHeartbeats(session, beats);
    } catch (err) {
      // A lost session is said once, by its owner; the runs stop with it.
      if (session.lost.aborted) return;
      this.logger.warn({ err: err instanceof Error ? err.message : String(err), runs: beats.length }, 'could not record the runs\' heartbeat');
    }
    this.logProgress();
  }

  /** One line per run whose last progress line (or start) is `progressEveryMs` old. */
  private logProgress(): void {
    const every = this.options.progressEveryMs;
    if (every === undefined) return;
    const now = (this.options.now ?? (() => performance.now()))();
    for (const run of this.runs) {
      if (now - (this.logged.get(run) ?? run.started) < every) continue;
      this.logged.set(run, now);
      const line = progressLine(run.scopes, run.counters.requests, rowsWritten(run.counters.tables), now - run.started);
      (run.logger ?? this.logger).info(line.fields, `progress: ${line.text}`);
    }
  }
}
