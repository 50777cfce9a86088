import type { ApiObserver } from '../api/client.js';

import type { JobName } from './jobs.js';
import type { RunSummary } from './run.js';

/**
 * What a run reports to whoever watches it (the worker's metrics). Kept to plain callbacks so
 * the sync engine knows nothing of Prometheus. Every hook is called synchronously and must not
 * throw or block.
 */
export interface SyncObserver {
  /** Every upstream attempt and every retry, as the API client sees them. */
  api?: ApiObserver;
  /** A run took its job's lock and is about to walk. */
  runStarted?(run: { runId: number; job: JobName }): void;
  /** A run ended, whatever its status (`skipped` included), after its row was written. */
  runFinished?(summary: RunSummary): void;
}
