import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { ENDPOINTS } from '../sync/endpoints.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import type { SyncObserver } from '../sync/observer.js';

import { runningRuns, type RunningRun } from './running-runs.js';

/** Row counts a run reports per table, as Prometheus `kind` labels; `unchanged` rows are not written. */
const WRITE_KINDS = ['inserted', 'updated', 'deleted', 'rejected'] as const;

export interface WorkerMetrics {
  /** This worker's own registry (never prom-client's global one, so two workers in one process do not collide). */
  readonly registry: Registry;
  /** Hooks for runSync's `observer`. */
  readonly observer: SyncObserver;
  /** Seeds the last-success gauge from the database at start-up, so a restart does not blank it. */
  setLastSuccess(job: JobName, at: Date): void;
}

/** Upstream paths as the endpoint names the rest of pitwall uses. */
const ENDPOINT_BY_PATH = new Map(ENDPOINTS.map((e) => [e.path, e.name]));
const endpointOf = (path: string): string => ENDPOINT_BY_PATH.get(path) ?? path;

/**
 * The running runs' progress gauges, read from pitwall.sync_runs at scrape time: any process's
 * runs, as their heartbeats left them. One query per scrape, shared by the four gauges.
 */
function runProgressGauges(pool: pg.Pool, registers: Registry[]): void {
  let snapshot: { at: number; runs: Promise<RunningRun[]> } | undefined;
  const current = () => {
    if (!snapshot || performance.now() - snapshot.at > 1000) snapshot = { at: performance.now(), runs: runningRuns(pool) };
    return snapshot.runs;
  };
  const gauge = (name: string, help: string, value: (r: RunningRun) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['job'] as const,
      registers,
      async collect() {
        this.reset();
        for (const r of await current()) this.set({ job: r.job }, value(r));
      },
    });
  gauge('pitwall_run_scopes_done', 'Request scopes a running run has finished so far, by job (from its last heartbeat).', (r) => r.scopes_done);
  gauge('pitwall_run_scopes_total', 'Request scopes a running run knows of so far, by job; grows as the walk discovers scopes.', (r) => r.scopes_total);
  gauge('pitwall_run_requests', 'Upstream requests a running run has made so far, by job.', (r) => r.requests);
  gauge('pitwall_run_rows_written', 'Rows a running run has inserted, updated or deleted so far, by job.', (r) => r.rows_written);
}

/** `pool`, when given, feeds the running runs' progress gauges at scrape time. */
export function createMetrics(pool?: pg.Pool): WorkerMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'pitwall_' });

  const requests = new Counter({
    name: 'pitwall_upstream_requests_total',
    help: 'Upstream HTTP attempts, by endpoint and HTTP status ("none" when no response arrived).',
    labelNames: ['endpoint', 'status'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'pitwall_upstream_retries_total',
    help: 'Upstream attempts that failed and were retried, by endpoint and reason.',
    labelNames: ['endpoint', 'reason'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'pitwall_upstream_request_duration_seconds',
    help: 'Duration of one upstream attempt, headers and body.',
    labelNames: ['endpoint'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const rows = new Counter({
    name: 'pitwall_rows_written_total',
    help: 'Warehouse rows written, by table and kind; counted when the run finishes.',
    labelNames: ['table', 'kind'] as const,
    registers,
  });
  const fieldErrors = new Counter({
    name: 'pitwall_field_errors_total',
    help: 'Values that failed their field type and were stored as NULL (see pitwall.field_errors), by table; counted when the run finishes.',
    labelNames: ['table'] as const,
    registers,
  });
  const runs = new Counter({
    name: 'pitwall_runs_total',
    help: 'Finished runs, by job and status.',
    labelNames: ['job', 'status'] as const,
    registers,
  });
  const runDuration = new Histogram({
    name: 'pitwall_run_duration_seconds',
    help: 'Duration of finished runs, by job and status.',
    labelNames: ['job', 'status'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 3600, 10800, 43200],
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'pitwall_last_success_timestamp_seconds',
    help: 'When each job last finished a run that succeeded (Unix seconds).',
    labelNames: ['job'] as const,
    registers,
  });
  const running = new Gauge({
    name: 'pitwall_job_running',
    help: '1 while a run of the job is in progress in this worker.',
    labelNames: ['job'] as const,
    registers,
  });
  for (const job of JOB_NAMES) running.set({ job }, 0);
  const drift = new Gauge({
    name: 'pitwall_shape_drift_paths',
    help: 'Paths by which the loaded responses differ from the modelled shapes (see pitwall drift), by endpoint and kind (unmodelled, missing, failing); set when a run ends.',
    labelNames: ['endpoint', 'kind'] as const,
    registers,
  });

  if (pool) runProgressGauges(pool, registers);

  const observer: SyncObserver = {
    api: {
      onRequest: (e) => {
        const endpoint = endpointOf(e.path);
        requests.inc({ endpoint, status: e.status === null ? 'none' : String(e.status) });
        latency.observe({ endpoint }, e.durationMs / 1000);
      },
      onRetry: (e) => retries.inc({ endpoint: endpointOf(e.path), reason: e.reason }),
    },
    runStarted: ({ job }) => running.set({ job }, 1),
    runFinished: (s) => {
      runs.inc({ job: s.job, status: s.status });
      if (s.status === 'skipped') return;
      running.set({ job: s.job }, 0);
      runDuration.observe({ job: s.job, status: s.status }, s.durationMs / 1000);
      if (s.status === 'succeeded') lastSuccess.set({ job: s.job }, Date.now() / 1000);
      for (const [table, counts] of Object.entries(s.tables)) {
        for (const kind of WRITE_KINDS) if (counts?.[kind]) rows.inc({ table, kind }, counts[kind]);
        if (counts?.fieldErrors) fieldErrors.inc({ table }, counts.fieldErrors);
      }
      if (s.drift) {
        // The report covers the whole warehouse: it replaces the last one, endpoints gone clean included.
        drift.reset();
        for (const [endpoint, kinds] of Object.entries(s.drift)) {
          for (const [kind, n] of Object.entries(kinds)) drift.set({ endpoint, kind }, n);
        }
      }
    },
  };

  return {
    registry,
    observer,
    setLastSuccess: (job, at) => lastSuccess.set({ job }, at.getTime() / 1000),
  };
}
