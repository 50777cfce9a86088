// The sync layer's shared types: what a run is given (its dependencies) and who watches it.
// Imports types only, and none from a module that imports this one, so the run, its shell, its
// client and the worker name them without importing each other.
import type pg from 'pg';

import type { Transport } from '../api/http-get.js';
import type { RequestEvent, RetryEvent } from '../api/types.js';
import type { Config } from '../config.js';
import type { ProcessPace } from '../coordination/pace.js';
import type { JobLock } from '../coordination/types.js';
import type { Logger } from '../log.js';

import type { Heartbeat, RunFigures } from './heartbeat.js';
import type { JobName } from './jobs.js';
import type { RunSummary } from './summary.js';

/** What a run tells its watcher about itself beside the event: the source it works for. */
export interface RunOf {
  source: string;
}

/**
 * What a run reports to whoever watches it (the worker's metrics). Kept to plain callbacks so
 * the sync engine knows nothing of Prometheus. Every hook names the run's source, since one
 * watcher sees the runs of every source. Every hook is called synchronously and must not throw
 * or block.
 */
export interface SyncObserver {
  /** Every upstream attempt and every retry, as the API client sees them. */
  api?: {
    onRequest?(event: RequestEvent & RunOf): void;
    onRetry?(event: RetryEvent & RunOf): void;
  };
  /** A run took its job's lock and is about to walk. */
  runStarted?(run: { runId: number; job: JobName } & RunOf): void;
  /** A run ended, whatever its status (`skipped` included), after its row was written. */
  runFinished?(summary: RunSummary, run: RunOf): void;
}

/**
 * What a worker's runs share: their job locks on its one lock session, one heartbeat for all of
 * them written by its beat, and each source's pace in memory. A run without it (a manual sync, a
 * rebuild) opens the same kind of session for itself (src/sync/own-session.ts) and takes a
 * guest's share of the pace.
 */
export interface RunCoordination {
  /** Takes the run's job locks, and closes the job's dead runs (src/sync/sql/job-lock.ts). */
  tryJobLocks(source: string, jobs: readonly string[], job: string): Promise<JobLock | null>;
  /** Adds the run to the heartbeat its process's beat writes. */
  startHeartbeat(run: RunFigures): Heartbeat;
  pace: ProcessPace;
}

export interface RunShellDeps {
  pool: pg.Pool;
  logger: Logger;
  /** The source the run works for (PITWALL_SOURCES); DEFAULT_SOURCE without one. */
  source?: string;
  /** Metrics hooks (the worker's); the run works the same without them. */
  observer?: SyncObserver;
  /** Milliseconds between the beats of a run's own lock session (no worker), at most BEAT_MS, which is the default. */
  heartbeatMs?: number;
  /** Where a run's own lock session connects, when not where the pool does (PITWALL_LOCK_DATABASE_URL). */
  lockDatabaseUrl?: string | undefined;
  /** The worker's, for its runs; see RunCoordination. */
  coordination?: RunCoordination;
}

export interface SyncDeps extends RunShellDeps {
  config: Config & { apiKey: string };
  /** Injected by tests that need to watch or break the transport; httpGet otherwise. */
  fetch?: Transport;
  /** The clock jobs read "today" and "the current year" from; the wall clock otherwise. */
  now?: () => Date;
}
