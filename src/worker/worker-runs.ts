import pLimit from 'p-limit';

import type { Logger } from '../log.js';
import { RunCounters } from '../sync/counters.js';
import type { JobName } from '../sync/jobs.js';
import { buildSummary, type RunSummary } from '../sync/summary.js';
import type { SyncObserver } from '../sync/types.js';

/**
 * How long past the drain timeout a stopping worker may take, whatever the database does: its runs
 * get all but 2 s of it to record their outcome, its lock session 1 s to close and its pool 1 s
 * to end (src/db/pool.ts endPool), each ended by force when its time is up.
 */
export const STOP_GRACE_MS = 5_000;
export const RUNS_GRACE_MS = STOP_GRACE_MS - 2_000;

/**
 * The runs of one worker: at most `slots` at once, whatever the number of sources it owns, each
 * counted under its source while it goes (a source with a run going is never handed over).
 */
export class WorkerRuns {
  private readonly slots: ReturnType<typeof pLimit>;
  private readonly running = new Set<Promise<RunSummary>>();
  private readonly started = new Map<string, number>();
  // The ids of the runs going here: one of this process's recorded running and not among them is
  // dead (a database restart cut it off before it could record its end), whatever its heartbeat.
  private readonly ids = new Set<number>();

  constructor(slots: number) {
    this.slots = pLimit(slots);
  }

  /** Runs going or waiting for a slot now. */
  get size(): number {
    return this.running.size;
  }

  /** Whether a run of `source` is going here. */
  busy(source: string): boolean {
    return (this.started.get(source) ?? 0) > 0;
  }

  /** Whether the run of this id is going here now. */
  going(runId: number): boolean {
    return this.ids.has(runId);
  }

  /**
   * Runs `run` once a slot is free, unless `refuse` (asked then) names why it must not begin any
   * more: the run is then reported `interrupted`, run id 0, having begun nothing. `run` is given
   * the observer to run with: `observer`, which also tells this the run's id as its row is written.
   */
  add(source: string, job: JobName, refuse: () => string | undefined, observer: SyncObserver, run: (observer: SyncObserver) => Promise<RunSummary>): Promise<RunSummary> {
    const going = this.slots(async () => {
      const why = refuse();
      if (why !== undefined) return buildSummary(0, job, 'interrupted', performance.now(), new RunCounters(), why);
      this.started.set(source, (this.started.get(source) ?? 0) + 1);
      let runId: number | undefined;
      const tracked: SyncObserver = {
        ...observer,
        runStarted: (r) => {
          this.ids.add((runId = r.runId));
          observer.runStarted?.(r);
        },
      };
      try {
        return await run(tracked);
      } finally {
        if (runId !== undefined) this.ids.delete(runId);
        this.started.set(source, (this.started.get(source) ?? 1) - 1);
      }
    });
    this.running.add(going);
    const settle = () => this.running.delete(going);
    void going.then(settle, settle);
    return going;
  }

  /**
   * Waits for every run to record its outcome, at most `boundMs`: a database that does not answer
   * holds no stop past it. Says in one line how the runs ended: interrupted, and left unrecorded.
   */
  async drain(boundMs: number, logger: Logger): Promise<void> {
    const runs = [...this.running];
    if (runs.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), boundMs)));
    const ended = await Promise.all(runs.map((r) => Promise.race([r.then((s) => s.status, () => 'failed' as const), bound])));
    clearTimeout(timer);
    const interrupted = ended.filter((s) => s === 'interrupted').length;
    const late = ended.filter((s) => s === 'late').length;
    if (interrupted === 0 && late === 0) return;
    const unrecorded = late > 0 ? `; ${late} could not record it (the database did not answer), and the next owner closes them as abandoned` : '';
    logger.info({ interrupted, unrecorded: late }, `${interrupted} run(s) interrupted by the stop; the next run of each job continues it${unrecorded}`);
  }
}
