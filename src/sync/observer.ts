import type { RequestEvent, RetryEvent } from '../api/client.js';

import type { JobName } from './jobs.js';
import type { RunSummary } from './run.js';

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
