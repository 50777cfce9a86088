import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { ENDPOINTS } from '../sync/endpoints.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import type { SyncObserver } from '../sync/types.js';

import type { RunningRun } from './running-runs.js';
import { setAsideCounts } from './status-queries.js';
import { readSnapshot, runsNow } from './status-snapshot.js';

/** Row counts a run reports per table, as Prometheus `kind` labels; `unchanged` rows are not written. */
const WRITE_KINDS = ['inserted', 'updated', 'deleted', 'rejected'] as const;

export interface WorkerMetrics {
  /** This worker's own registry (never prom-client's global one, so two workers in one process do not collide). */
  readonly registry: Registry;
  /** Hooks for runSync's `observer`. */
  readonly observer: SyncObserver;
  /** Seeds a source's last-success gauge from the database at start-up, so a restart does not blank it. */
  setLastSuccess(job: JobName, at: Date, source: string): void;
  /** Whether this worker owns `source` now (it alone runs its schedules). */
  setOwned(source: string, owned: boolean): void;
}

/** Upstream paths as the endpoint names the rest of pitwall uses. */
const ENDPOINT_BY_PATH = new Map(ENDPOINTS.map((e) => [e.path, e.name]));
const endpointOf = (path: string): string => ENDPOINT_BY_PATH.get(path) ?? path;

interface ScrapeReading {
  running: RunningRun[];
  setAside: Array<{ source: string; endpoint: string; kind: string; scopes: number }>;
}

/**
 * The gauges read from the warehouse at scrape time: the running runs' progress (any process's
 * runs, of any source, as their heartbeats left them) and the scopes set aside now. One reading
 * (readSnapshot) per scrape, shared by the five gauges, so they agree with each other and with
 * the status page.
 */
function warehouseGauges(pool: pg.Pool, registers: Registry[]): void {
  let last: { at: number; reading: Promise<ScrapeReading> } | undefined;
  const current = () => {
    if (!last || performance.now() - last.at > 1000) {
      const reading = readSnapshot(pool, async (snapshot) => ({ running: (await runsNow(snapshot, null)).running, setAside: await setAsideCounts(snapshot.db) }));
      last = { at: performance.now(), reading };
    }
    return last.reading;
  };
  const gauge = (name: string, help: string, value: (r: RunningRun) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['source', 'job'] as const,
      registers,
      async collect() {
        this.reset();
        for (const r of (await current()).running) this.set({ source: r.source, job: r.job }, value(r));
      },
    });
  gauge('pitwall_run_scopes_done', 'Request scopes a running run has finished so far, by source and job (from its last heartbeat).', (r) => r.scopes_done);
  gauge('pitwall_run_scopes_total', 'Request scopes a running run knows of so far, by source and job; grows as the walk discovers scopes.', (r) => r.scopes_total);
  gauge('pitwall_run_requests', 'Upstream requests a running run has made so far, by source and job.', (r) => r.requests);
  gauge('pitwall_run_rows_written', 'Rows a running run has inserted, updated or deleted so far, by source and job.', (r) => r.rows_written);
  new Gauge({
    name: 'pitwall_set_aside_scopes',
    help: 'Request scopes set aside now, by source, endpoint and kind of failure: each failed the same way in two runs in a row (three for a passing fault), and runs skip it until PITWALL_SET_ASIDE_HOURS have passed (pitwall status lists them).',
    labelNames: ['source', 'endpoint', 'kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const r of (await current()).setAside) this.set({ source: r.source, endpoint: r.endpoint, kind: r.kind }, r.scopes);
    },
  });
}

/**
 * The worker's metrics, every series of runs and requests labelled with its `source` (the
 * sources' names go into labels, never their keys). `pool`, when given, feeds the running runs'
 * progress gauges at scrape time; `sources` are the sources whose `pitwall_job_running` is 0
 * before their first run (a source met later gets its series with its first run).
 */
export function createMetrics(pool?: pg.Pool, sources: readonly string[] = [DEFAULT_SOURCE]): WorkerMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'pitwall_' });

  const requests = new Counter({
    name: 'pitwall_upstream_requests_total',
    help: 'Upstream HTTP attempts, by source, endpoint and HTTP status ("none" when no response arrived).',
    labelNames: ['source', 'endpoint', 'status'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'pitwall_upstream_retries_total',
    help: 'Upstream attempts that failed and were retried, by source, endpoint and reason.',
    labelNames: ['source', 'endpoint', 'reason'] as const,
    registers,
  });
  const latency = new Histogram({
    name: 'pitwall_upstream_request_duration_seconds',
    help: 'Duration of one upstream attempt, headers and body, by source and endpoint.',
    labelNames: ['source', 'endpoint'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const rows = new Counter({
    name: 'pitwall_rows_written_total',
    help: 'Warehouse rows written, by source, table and kind; counted when the run finishes.',
    labelNames: ['source', 'table', 'kind'] as const,
    registers,
  });
  const fieldErrors = new Counter({
    name: 'pitwall_field_errors_total',
    help: 'Values that failed their field type and were stored as NULL (see pitwall.field_errors), by source and table; counted when the run finishes.',
    labelNames: ['source', 'table'] as const,
    registers,
  });
  const runs = new Counter({
    name: 'pitwall_runs_total',
    help: 'Finished runs, by source, job and status.',
    labelNames: ['source', 'job', 'status'] as const,
    registers,
  });
  const runDuration = new Histogram({
    name: 'pitwall_run_duration_seconds',
    help: 'Duration of finished runs, by source, job and status.',
    labelNames: ['source', 'job', 'status'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 3600, 10800, 43200],
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'pitwall_last_success_timestamp_seconds',
    help: 'When each job of each source last finished a run that succeeded (Unix seconds).',
    labelNames: ['source', 'job'] as const,
    registers,
  });
  const running = new Gauge({
    name: 'pitwall_job_running',
    help: '1 while a run of the source\'s job is in progress in this worker.',
    labelNames: ['source', 'job'] as const,
    registers,
  });
  for (const source of sources) for (const job of JOB_NAMES) running.set({ source, job }, 0);
  const owned = new Gauge({
    name: 'pitwall_source_owned',
    help: '1 while this worker owns the source: it alone runs the source\'s schedules, catch-up and pace.',
    labelNames: ['source'] as const,
    registers,
  });
  for (const source of sources) owned.set({ source }, 0);
  const drift = new Gauge({
    name: 'pitwall_shape_drift_paths',
    help: 'Paths by which the loaded responses differ from the modelled shapes (see pitwall drift), by source, endpoint and kind (unmodelled, missing, failing); set when a run of the source ends.',
    labelNames: ['source', 'endpoint', 'kind'] as const,
    registers,
  });
  /** The drift series each source's last report set, so the next replaces them without touching other sources'. */
  const driftSeries = new Map<string, Array<{ source: string; endpoint: string; kind: string }>>();

  if (pool) {
    warehouseGauges(pool, registers);
  }

  const observer: SyncObserver = {
    api: {
      onRequest: (e) => {
        const endpoint = endpointOf(e.path);
        requests.inc({ source: e.source, endpoint, status: e.status === null ? 'none' : String(e.status) });
        latency.observe({ source: e.source, endpoint }, e.durationMs / 1000);
      },
      onRetry: (e) => retries.inc({ source: e.source, endpoint: endpointOf(e.path), reason: e.reason }),
    },
    runStarted: ({ source, job }) => running.set({ source, job }, 1),
    runFinished: (s, { source }) => {
      runs.inc({ source, job: s.job, status: s.status });
      if (s.status === 'skipped') return;
      running.set({ source, job: s.job }, 0);
      runDuration.observe({ source, job: s.job, status: s.status }, s.durationMs / 1000);
      if (s.status === 'succeeded') lastSuccess.set({ source, job: s.job }, Date.now() / 1000);
      for (const [table, counts] of Object.entries(s.tables)) {
        for (const kind of WRITE_KINDS) if (counts?.[kind]) rows.inc({ source, table, kind }, counts[kind]);
        if (counts?.fieldErrors) fieldErrors.inc({ source, table }, counts.fieldErrors);
      }
      if (s.drift) {
        // The report covers the source's whole part of the warehouse: it replaces the source's
        // last one, endpoints gone clean included.
        for (const labels of driftSeries.get(source) ?? []) drift.remove(labels);
        const series = Object.entries(s.drift).flatMap(([endpoint, kinds]) => Object.entries(kinds).map(([kind, n]) => ({ labels: { source, endpoint, kind }, n })));
        for (const { labels, n } of series) drift.set(labels, n);
        driftSeries.set(source, series.map((x) => x.labels));
      }
    },
  };

  return {
    registry,
    observer,
    setLastSuccess: (job, at, source) => lastSuccess.set({ source, job }, at.getTime() / 1000),
    setOwned: (source, is) => owned.set({ source }, is ? 1 : 0),
  };
}
