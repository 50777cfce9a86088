import type pg from 'pg';

import type { Config } from '../config.js';
import { sessionName } from '../coordination/lock-session.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import type { Logger } from '../log.js';
import type { Source } from '../sources.js';
import type { JobName } from '../sync/jobs.js';
import type { RunSummary } from '../sync/run.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';
import { publishSchedules } from '../sync/sql/source-schedules.js';

import { catchingUpMessage, startCatchUp, type CatchUp } from './catch-up.js';
import { startScheduler, type ScheduledJob, type Scheduler } from './scheduler.js';

export interface OwnedSourcesOptions {
  pool: pg.Pool;
  config: Config;
  logger: Logger;
  /** Starts a run of `job` of `source` here; `begins` is called as it begins. */
  startRun(job: JobName, trigger: 'cron' | 'catch-up', source: string, begins?: () => void): Promise<RunSummary>;
  /** Whether this worker still owns `source` (the ownership's word), and is not stopping. */
  keeps(source: string): boolean;
  /** Whether the run of this id is going in this worker. */
  going(runId: number): boolean;
  /** Told when a source is taken or given up, for the metrics. */
  owned(source: string, is: boolean): void;
}

/** A source this worker owns: its schedules and catch-up. */
interface OwnedSource {
  source: Source;
  scheduler: Scheduler;
  catchUp?: CatchUp;
}

/**
 * What a worker runs for the sources it owns: each one's three schedules and, when it is taken,
 * its catch-up. A source is added when the ownership takes it and removed when it is given up or
 * lost, which stops its schedules and its catch-up (its runs stop with their job locks).
 */
export class OwnedSources {
  private readonly owned = new Map<string, OwnedSource>();

  constructor(private readonly options: OwnedSourcesOptions) {}

  /**
   * Taken at start, from a worker that died or lost its session, or handed over to even out
   * shares: the runs the rule calls dead are closed first (once for all the sources taken in one
   * beat), then each source's schedules and catch-up start here.
   */
  async gain(sources: readonly Source[]): Promise<void> {
    const { logger } = this.options;
    try {
      const abandoned = await markDeadRuns(this.options.pool);
      if (abandoned.length > 0) logger.info({ abandoned }, 'runs left running by dead processes marked abandoned');
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not check for dead runs');
    }
    const taken: Source[] = [];
    for (const source of sources) {
      if (!this.options.keeps(source.name) || this.owned.has(source.name)) continue;
      this.owned.set(source.name, this.start(source));
      this.options.owned(source.name, true);
      taken.push(source);
    }
    await this.publish(taken);
  }

  /** Writes the schedules this worker runs for the sources it has just taken, for `pitwall status` to read. */
  private async publish(sources: readonly Source[]): Promise<void> {
    const { config, logger, pool } = this.options;
    const worker = sessionName('worker').replace(/^pitwall worker /, '');
    const schedules = sources.map((s) => ({
      source: s.name,
      schedules: { live: s.config.cronLive, season: s.config.cronSeason, full: s.config.cronFull, timezone: config.timezone },
    }));
    // Only what status shows: its failure stops nothing.
    await publishSchedules(pool, worker, schedules).catch((err: unknown) =>
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not record the schedules of the sources taken'),
    );
  }

  lose(name: string): void {
    const own = this.owned.get(name);
    if (!own) return;
    this.owned.delete(name);
    this.options.owned(name, false);
    own.scheduler.stop();
    own.catchUp?.stop();
  }

  names(): string[] {
    return [...this.owned.keys()];
  }

  /** Every owned source's schedules are running. */
  alive(): boolean {
    return [...this.owned.values()].every((o) => o.scheduler.alive());
  }

  /** When `source`'s jobs fire next here; the first owned source's when none is named. */
  nextRuns(source?: string): Partial<Record<JobName, string | null>> {
    const own = source === undefined ? [...this.owned.values()][0] : this.owned.get(source);
    return own?.scheduler.nextRuns() ?? {};
  }

  /** Settles when the catch-ups of the sources owned now have nothing left to do. */
  async caughtUp(): Promise<void> {
    await Promise.all([...this.owned.values()].map((o) => o.catchUp?.done));
  }

  private start(source: Source): OwnedSource {
    const { config, pool } = this.options;
    const name = source.name;
    // A source's lines carry its name, but for the one unnamed source of a single-source worker.
    const logger = name === DEFAULT_SOURCE ? this.options.logger : this.options.logger.child({ source: name });
    const jobs: ScheduledJob[] = [
      { job: 'live', cron: source.config.cronLive },
      { job: 'season', cron: source.config.cronSeason },
      { job: 'full', cron: source.config.cronFull },
    ];
    const own: OwnedSource = {
      source,
      scheduler: startScheduler({ jobs, timezone: config.timezone, run: (job) => this.scheduled(own, job), logger }),
    };
    if (config.catchUp === 'on') {
      const run = (job: JobName, fire: string) => this.options.startRun(job, 'catch-up', name, () => logger.info({ job, fire }, catchingUpMessage(job, fire)));
      own.catchUp = startCatchUp({ pool, source: name, logger, jobs, timezone: config.timezone, run, going: this.options.going });
    }
    return own;
  }

  /**
   * A cron fire. A run records its own failure; an exception here means the database failed
   * before the run could even be recorded: logged, and the next fire tries again.
   */
  private scheduled(own: OwnedSource, job: JobName): Promise<unknown> {
    const { logger } = this.options;
    const source = own.source.name;
    if (job !== 'full' && own.catchUp?.fullRunning()) {
      logger.info({ source, job }, 'tick left to the full catch-up running now, which loads this job\'s data too');
      return Promise.resolve();
    }
    return this.options.startRun(job, 'cron', source).catch((err: unknown) =>
      logger.error({ source, job, err: err instanceof Error ? err.message : String(err) }, 'job could not run'),
    );
  }
}
