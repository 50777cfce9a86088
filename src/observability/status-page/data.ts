import type pg from 'pg';

import type { Reader } from '../../db/reader.js';
import { DEFAULT_SOURCE } from '../../db/schema/columns.js';
import { warehouseTables, type WarehouseTableName } from '../../db/schema/mrp.js';
import { redact } from '../../secrets.js';
import type { Shapes } from '../../shapes/overrides.js';
import { loadDrift } from '../../sync/shape/load.js';
import { driftCounts, type DriftKind } from '../../sync/shape/report.js';
import { noLongerConfigured, type NoLongerConfigured } from '../../sync/sql/configured-sources.js';
import { recordedSources } from '../../sync/sql/recorded-sources.js';
import type { RunningRun } from '../running-runs.js';
import {
  endpointStates,
  failingScopes,
  jobStates,
  recentRuns,
  recentRunsPerJob,
  setAsideScopes,
  type EndpointCounts,
  type FailingScope,
  type RunRow,
  type SetAsideScope,
} from '../status-queries.js';
import { readSnapshot, runsNow, type Snapshot } from '../status-snapshot.js';

import { lastChanges, pageTables, runsOf, tableRows, type PageTable } from './tables.js';
import { ageSeconds, iso } from './time.js';

/**
 * What `/` shows and `/status.json` returns. Timestamps are ISO 8601 (UTC); ages are seconds at
 * `generated_at`. Every run, job, endpoint and missing field names its `source`; the tables are
 * the warehouse's, shared by the sources.
 */
export interface StatusPageData {
  generated_at: string;
  /**
   * Whether the worker serving the page holds its lock session within its lease (docs/scaling.md,
   * "The lease"): `lost` means it owns no source and runs nothing until it has a new one. Absent
   * where no worker serves the page.
   */
  lock_session?: 'held' | 'lost';
  /** The sources shown, in order (the worker's, then any other the warehouse has runs of), each with when its jobs' schedules fire next in this worker (ISO; null once stopped). */
  sources: PageSource[];
  jobs: Array<{
    source: string;
    job: string;
    last_run_id: number | null;
    last_status: string | null;
    last_started_at: string | null;
    last_success_at: string | null;
    last_success_age_seconds: number | null;
    /** How its latest run that ran to an end ended, and which run that was (null before any did): what the headline says of it. */
    outcome: string | null;
    outcome_run_id: number | null;
  }>;
  /** Runs going now, with their progress as their last heartbeat left it. */
  running: RunningRun[];
  /** The first source's next fire times (the ones `/healthz` reports); each source's are in `sources`. */
  next_runs: Record<string, string | null>;
  /** The newest runs of any job of the sources, newest first. */
  runs: PageRun[];
  /** Per job, each source's newest runs of it, by source, newest first (the duration charts). */
  runs_per_job: Record<string, PageRun[]>;
  endpoints: PageEndpoint[];
  tables: PageTable[];
  /** Whether pitwall.shape_paths has rows; until it does, `drift` is null on every endpoint. */
  drift_recorded: boolean;
  /** Modelled fields the upstream stopped sending (or never sent beside a likely new name), until they come back. */
  missing_fields: MissingField[];
  /** Scopes runs skip for now (each failed the same way in two or three runs in a row: src/sync/scope-failure.ts), soonest back first; at most 50. */
  set_aside: SetAsideScope[];
}

export interface PageSource {
  source: string;
  next_runs: Record<string, string | null>;
  /** The worker that owns the source now (`pid@host`): it alone runs the source's schedules. Null when none does. */
  owner: string | null;
  /**
   * Set for a source the worker does not run that the warehouse has runs of: since when no worker
   * or sync has been configured with it (pitwall.sources), and whether its rows were retired.
   */
  no_longer_configured: NoLongerConfigured | null;
}

export interface MissingField {
  source: string;
  endpoint: string;
  path: string;
  /** The run that found every item without it. */
  since_run_id: number;
}

/** Fields pitwall.shape_paths marks missing: a run found every object able to hold them without them. */
async function missingFields(db: Reader, sources: readonly string[]): Promise<MissingField[]> {
  const { rows } = await db.query<MissingField>(
    `SELECT source, endpoint, path, missing_since_run_id::int AS since_run_id FROM pitwall.shape_paths
      WHERE missing_since_run_id IS NOT NULL AND source = ANY($1::text[]) ORDER BY array_position($1::text[], source), endpoint, path`,
    [sources],
  );
  return rows;
}

/** A run as the page shows it: times as ISO text, the error masked. */
export type PageRun = RunRow;

export interface PageEndpoint extends EndpointCounts {
  last_success_age_seconds: number | null;
  /** Items of the source refused by validation, every run so far. */
  items_rejected: number;
  /** Failing scopes, most recent first, at most FAILING_PER_ENDPOINT. */
  failing: Array<Omit<FailingScope, 'source' | 'endpoint'>>;
  /** The source's shape report's counts, as `pitwall drift`, `status` and the metrics gauge give them. */
  drift: Record<DriftKind, number> | null;
}

/** A source the worker runs, as it tells the page. */
export interface WorkerSource {
  name: string;
  /** Its schedule's next fire times in this worker. */
  nextRuns?: Partial<Record<string, string | null>>;
  /** The `PITWALL_SHAPES` file its runs apply: its aliases count as modelled in its drift counts. */
  shapes?: Shapes | null;
}

export interface StatusPageOptions {
  /** Strings never to show (the API keys, the database password): error texts are redacted with them. */
  secrets: readonly string[];
  /** How many runs the table and charts show; default 30. */
  runs?: number;
  /**
   * The sources the worker runs, with their next fire times and shapes. The page shows them, then
   * any other source the warehouse has runs of (with no schedule here). Without it, the page
   * shows the sources with runs (DEFAULT_SOURCE on an empty warehouse), each with `nextRuns`
   * and `shapes`.
   */
  sources?: () => readonly WorkerSource[];
  /** The worker's scheduler's next fire times when `sources` is not given; none outside a worker. */
  nextRuns?: () => Partial<Record<string, string | null>>;
  /** The `PITWALL_SHAPES` file of the sources `sources` does not give their own. */
  shapes?: Shapes | null;
  /** Whether the worker serving the page holds its lock session; absent outside a worker. */
  lockSession?: () => boolean;
  /** The rule's bound on a heartbeat's age by which a run is dead; STALE_AFTER_MS unless a test holds its runs alive. */
  staleAfterMs?: number;
}

const FAILING_PER_ENDPOINT = 5;
const SET_ASIDE_SHOWN = 50;

/**
 * The sources the page shows, with their schedules and shapes, and whether the worker runs each:
 * null when no worker says (outside a worker, nothing is known of what is configured).
 */
async function shownSources(db: Reader, options: StatusPageOptions): Promise<Array<Required<WorkerSource> & { configured: boolean | null }>> {
  const given = options.sources?.() ?? [];
  const names = [...given.map((s) => s.name)];
  for (const name of await recordedSources(db)) if (!names.includes(name)) names.push(name);
  if (names.length === 0) names.push(DEFAULT_SOURCE);
  return names.map((name) => {
    const own = given.find((s) => s.name === name);
    const nextRuns = own ? (own.nextRuns ?? {}) : options.sources ? {} : (options.nextRuns?.() ?? {});
    return { name, nextRuns, shapes: own?.shapes ?? options.shapes ?? null, configured: options.sources ? own !== undefined : null };
  });
}

async function rejectsPerEndpoint(db: Reader, sources: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await db.query<{ source: string; endpoint: string; n: number }>(
    `SELECT source, endpoint, count(*)::int AS n FROM pitwall.rejects WHERE source = ANY($1::text[]) GROUP BY source, endpoint`,
    [sources],
  );
  return new Map(rows.map((r) => [`${r.source}\u0000${r.endpoint}`, r.n]));
}

/** Each source's shape report's counts per endpoint, under the source's own shapes file. */
async function driftPerSource(db: Reader, sources: ReadonlyArray<Required<WorkerSource>>): Promise<Map<string, Record<string, Record<DriftKind, number>>>> {
  const counts = new Map<string, Record<string, Record<DriftKind, number>>>();
  for (const s of sources) counts.set(s.name, driftCounts(await loadDrift(db, s.shapes, [s.name])));
  return counts;
}

/**
 * Everything the status page shows, read in a handful of statements of one reading (readSnapshot).
 * Nothing of the HTTP request reaches it. Every error text is redacted with `secrets` here, before
 * either rendering sees it.
 */
export async function loadStatusPage(pool: pg.Pool, options: StatusPageOptions): Promise<StatusPageData> {
  return readSnapshot(pool, (snapshot) => pageData(snapshot, options), options.staleAfterMs);
}

async function pageData(snapshot: Snapshot, options: StatusPageOptions): Promise<StatusPageData> {
  const { db } = snapshot;
  const limit = options.runs ?? 30;
  const clean = (text: string | null) => (text === null ? null : redact(text, options.secrets));
  const run = (r: RunRow): PageRun => ({ ...r, started_at: iso(r.started_at), finished_at: iso(r.finished_at), error: clean(r.error) });
  const tables = Object.keys(warehouseTables) as WarehouseTableName[];
  const shown = await shownSources(db, options);
  const names = shown.map((s) => s.name);

  const { owners, running } = await runsNow(snapshot, names);
  // One after another: a client runs one statement at a time.
  const jobs = await jobStates(db, names);
  const runs = await recentRuns(db, names, limit);
  const perJob = await recentRunsPerJob(db, names, limit);
  const endpoints = await endpointStates(db, names);
  const failing = await failingScopes(db, names, 1000, FAILING_PER_ENDPOINT);
  const rejected = await rejectsPerEndpoint(db, names);
  const drift = await driftPerSource(db, shown);
  const rows = await tableRows(db, tables);
  const changes = await lastChanges(db);
  const missing = await missingFields(db, names);
  const setAside = await setAsideScopes(db, names, SET_ASIDE_SHOWN);
  // Only a worker knows which sources are configured: it gives them in `sources`.
  const gone = await noLongerConfigured(db, shown.filter((s) => s.configured === false).map((s) => s.name));
  const now = snapshot.now.getTime();

  const runJobs = new Map<number, { source: string; job: string }>();
  for (const r of [...runs, ...perJob]) runJobs.set(r.run_id, { source: r.source, job: r.job });
  const older = await runsOf(db, endpoints.map((e) => e.last_run_id).filter((id): id is number => id !== null && !runJobs.has(id)));
  for (const [id, r] of older) runJobs.set(id, r);

  const pageEndpoints: PageEndpoint[] = endpoints.map(({ last_run_id: _run, ...e }) => ({
    ...e,
    last_success_at: iso(e.last_success_at),
    last_success_age_seconds: ageSeconds(iso(e.last_success_at), now),
    items_rejected: rejected.get(`${e.source}\u0000${e.endpoint}`) ?? 0,
    failing: failing
      .filter((f) => f.source === e.source && f.endpoint === e.endpoint)
      .map((f) => ({ params: f.params, status: f.status, last_error: clean(f.last_error), last_attempt_at: iso(f.last_attempt_at) })),
    drift: drift.get(e.source)?.[e.endpoint] ?? null,
  }));

  const sources = shown.map((s) => ({
    source: s.name,
    next_runs: Object.fromEntries(Object.entries(s.nextRuns).map(([job, at]) => [job, at ?? null])),
    owner: owners.get(s.name)?.worker ?? null,
    no_longer_configured: gone.get(s.name) ?? null,
  }));
  return {
    generated_at: new Date(now).toISOString(),
    ...(options.lockSession ? { lock_session: options.lockSession() ? ('held' as const) : ('lost' as const) } : {}),
    sources,
    jobs: jobs.map((j) => ({
      source: j.source,
      job: j.job,
      last_run_id: j.run_id,
      last_status: j.status,
      last_started_at: iso(j.started_at),
      last_success_at: iso(j.last_success_at),
      last_success_age_seconds: ageSeconds(iso(j.last_success_at), now),
      outcome: j.outcome,
      outcome_run_id: j.outcome_run_id,
    })),
    running,
    next_runs: sources[0]?.next_runs ?? {},
    runs: runs.map(run),
    runs_per_job: Object.fromEntries([...new Set(jobs.map((j) => j.job))].map((job) => [job, perJob.filter((r) => r.job === job).map(run)])),
    endpoints: pageEndpoints,
    tables: pageTables({ tables, rows, changes, endpoints, jobs, runs: runJobs, running, now }),
    drift_recorded: [...drift.values()].some((counts) => Object.keys(counts).length > 0),
    missing_fields: missing,
    set_aside: setAside.map((f) => ({ ...f, set_aside_until: iso(f.set_aside_until) ?? f.set_aside_until, last_error: clean(f.last_error) })),
  };
}
