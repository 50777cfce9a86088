import type { RunCounters, TableCounts } from './counters.js';
import type { JobName } from './jobs.js';
import type { DriftKind } from './shape/report.js';
import type { ShapeWarning } from './shape/vanished.js';
import type { RunStatus } from './sql/sync-runs.js';

/** What pitwall.sync_runs.job records: a sync job, or a rebuild from the kept responses. */
export type RunJob = JobName | 'rebuild';

export interface RunSummary {
  runId: number;
  job: RunJob;
  status: RunStatus;
  requests: number;
  retries: number;
  durationMs: number;
  tables: Partial<Record<string, TableCounts>>;
  scopes: RunCounters['scopes'];
  /** Distinct fields no schema models, per endpoint, among the bodies this run loaded. */
  unknownFields: Partial<Record<string, number>>;
  /** Modelled fields missing from every item this run loaded: renamed upstream, most likely. */
  missingFields: ShapeWarning[];
  repairedBodies: number;
  /** Occurrences of the API key in the bodies this run received (a rebuild: read back from pitwall.responses), masked (`[redacted]`) before anything was stored. */
  maskedValues: number;
  /**
   * The warehouse's shape report after the run, as path counts per endpoint and kind (the
   * metrics gauge); only for a run with an observer, and absent when it could not be read.
   */
  drift?: Record<string, Record<DriftKind, number>>;
  /** Every root request was refused and nothing loaded: the API key is the likely cause. */
  keyRefused?: true;
  /** No root request got any HTTP answer (refused, DNS, TLS, timeout) and nothing loaded: MRP_API_BASE_URL or the network is the likely cause. */
  upstreamUnreachable?: true;
  /**
   * The run ended because the warehouse failed (a restart, a failover, a lost connection) or its
   * lease ran out, not because of the upstream or its data: the catch-up runs it again as soon as
   * it can, with no upstream back-off.
   */
  databaseFailure?: true;
  /** The stopped run this one continued, and the requests its earlier parts sent (docs/reliability.md). */
  continues?: { runId: number; requestsBefore: number };
  error?: string;
}

/** The summary of a run that started at `started` (performance.now()) and counted `counters`. */
export function buildSummary(
  runId: number,
  job: RunJob,
  status: RunStatus,
  started: number,
  counters: RunCounters,
  error: string | undefined,
): RunSummary {
  return {
    runId,
    job,
    status,
    requests: counters.requests,
    retries: counters.retries,
    durationMs: Math.round(performance.now() - started),
    tables: { ...counters.tables },
    scopes: { ...counters.scopes },
    unknownFields: { ...counters.unknownFields },
    missingFields: [...counters.missingFields],
    repairedBodies: counters.repairedBodies,
    maskedValues: counters.maskedValues,
    ...(error ? { error } : {}),
  };
}
