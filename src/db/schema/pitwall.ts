import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

import { sourced } from './columns.js';

/** Operational tables: what pitwall did, where each request scope stands, and what it refused. */
export const pitwall = pgSchema('pitwall');

const tstz = (name: string) => timestamp(name, { withTimezone: true });

/** Binary data; this drizzle-orm version has no built-in `bytea` column. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

/** One row per run of a job. `status`: running | succeeded | failed | skipped | interrupted | abandoned. */
export const syncRuns = pitwall.table(
  'sync_runs',
  {
    run_id: bigint('run_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...sourced(),
    job: text('job').notNull(),
    trigger: text('trigger').notNull(),
    status: text('status').notNull(),
    started_at: tstz('started_at').notNull().default(sql`now()`),
    finished_at: tstz('finished_at'),
    requests: integer('requests').notNull().default(0),
    retries: integer('retries').notNull().default(0),
    rows_inserted: integer('rows_inserted').notNull().default(0),
    rows_updated: integer('rows_updated').notNull().default(0),
    rows_unchanged: integer('rows_unchanged').notNull().default(0),
    rows_deleted: integer('rows_deleted').notNull().default(0),
    rows_rejected: integer('rows_rejected').notNull().default(0),
    unknown_fields: integer('unknown_fields').notNull().default(0),
    /** Per-table counts, as printed by `pitwall sync --json`. */
    summary: jsonb('summary'),
    error: text('error'),
    host: text('host'),
    pid: integer('pid'),
    /** Written every few seconds while the run goes; a running run whose heartbeat is stale and whose lock is free is dead. */
    heartbeat_at: tstz('heartbeat_at'),
    /** Request scopes finished so far, and known so far (the walk discovers them as it goes). */
    scopes_done: integer('scopes_done').notNull().default(0),
    scopes_total: integer('scopes_total').notNull().default(0),
    /** The `PITWALL_SHAPES` file the run's rows were derived under, and the SHA-256 of its bytes; NULL without one. */
    shapes_file: text('shapes_file'),
    shapes_digest: text('shapes_digest'),
    /**
     * Whether the run's walk reached its end (every scope it found was visited): false while it
     * runs and when it stopped before, NULL for a run that never walked (skipped, or recorded
     * before pitwall continued runs). A run stopped before its end is continued by the next run
     * of its job (docs/reliability.md).
     */
    walk_done: boolean('walk_done'),
    /** The stopped run of the same job and source this one continues; NULL for a run that started afresh. */
    continues_run_id: bigint('continues_run_id', { mode: 'number' }),
    /** Requests the earlier parts sent (the runs this one continues, back to the one that started afresh). */
    requests_before: integer('requests_before').notNull().default(0),
  },
  (t) => [
    index('sync_runs_job_started_idx').on(t.source, t.job, t.started_at),
    // Every status check, page load and worker start looks for running runs (dead-run
    // detection); a partial index keeps that a lookup of a few rows, not a scan of years of runs.
    index('sync_runs_running_idx').on(t.source, t.job).where(sql`status = 'running'`),
  ],
);

/**
 * One row per request scope: an endpoint plus its canonical query string *without* the key.
 * `response_hash` lets an identical response skip processing entirely.
 * `status`: ok | invalid (RequestValid 0) | error.
 * A scope whose failure repeats run after run is set aside (`set_aside_until`), docs/reliability.md.
 */
export const syncState = pitwall.table(
  'sync_state',
  {
    ...sourced(),
    endpoint: text('endpoint').notNull(),
    params: text('params').notNull(),
    last_attempt_at: tstz('last_attempt_at'),
    last_success_at: tstz('last_success_at'),
    status: text('status').notNull(),
    response_hash: text('response_hash'),
    item_count: integer('item_count'),
    last_error: text('last_error'),
    last_run_id: bigint('last_run_id', { mode: 'number' }),
    /** Of the last failure: where it happened (`receive`, `parse`, `check`, `extract`, `load`…) and its kind (`too-large`, `slow-body`, `http 404`…). */
    failure_stage: text('failure_stage'),
    failure_kind: text('failure_kind'),
    /** Runs in a row whose visit of this scope failed with `failure_kind`; 0 once it loads. */
    failed_runs: integer('failed_runs').notNull().default(0),
    /** Set aside: runs skip the scope until then (a failure kind repeated in two or three runs in a row); NULL = tried every run. */
    set_aside_until: tstz('set_aside_until'),
  },
  (t) => [
    primaryKey({ columns: [t.source, t.endpoint, t.params] }),
    // Every run reads its source's set-aside scopes, every metrics scrape all of them: a handful
    // of rows among a warehouse's thousands of scopes.
    index('sync_state_set_aside_idx').on(t.source, t.set_aside_until).where(sql`set_aside_until IS NOT NULL`),
  ],
);

/** Items or whole bodies that failed validation. The key is never part of `params`. */
export const rejects = pitwall.table(
  'rejects',
  {
    reject_id: bigint('reject_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...sourced(),
    run_id: bigint('run_id', { mode: 'number' }),
    endpoint: text('endpoint').notNull(),
    params: text('params').notNull(),
    reason: text('reason').notNull(),
    /** The rejected item when it was JSON; a bounded snippet of the body otherwise. */
    payload: jsonb('payload'),
    payload_snippet: text('payload_snippet'),
    created_at: tstz('created_at').notNull().default(sql`now()`),
  },
  (t) => [index('rejects_run_idx').on(t.run_id)],
);

/**
 * Response bodies pitwall accepted, as received (after transport decoding and the `,,` repair),
 * so the typed tables can be rebuilt from them without asking the upstream again
 * (`pitwall rebuild`). Written in the same transaction as the rows a body produced. Only the
 * newest PITWALL_KEEP_RESPONSES versions of a scope are kept (default 1).
 */
export const responses = pitwall.table(
  'responses',
  {
    response_id: bigint('response_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...sourced(),
    endpoint: text('endpoint').notNull(),
    params: text('params').notNull(),
    run_id: bigint('run_id', { mode: 'number' }),
    received_at: tstz('received_at').notNull().default(sql`now()`),
    /** The scope's response hash when this body was loaded (sync_state.response_hash). */
    response_hash: text('response_hash').notNull(),
    /** How `body` is compressed: `gzip`. */
    encoding: text('encoding').notNull(),
    body: bytea('body').notNull(),
    /** The body's size before compression, in bytes. */
    body_bytes: integer('body_bytes').notNull(),
  },
  (t) => [index('responses_scope_idx').on(t.source, t.endpoint, t.params, t.response_id)],
);

/**
 * Values that failed their field's type. The field's typed column holds NULL and the row loads;
 * the value as received stays in the row's `raw` and is recorded here. Replaced per scope each
 * time its response is loaded, so the table describes what is in the warehouse now.
 */
export const fieldErrors = pitwall.table(
  'field_errors',
  {
    field_error_id: bigint('field_error_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    ...sourced(),
    run_id: bigint('run_id', { mode: 'number' }),
    endpoint: text('endpoint').notNull(),
    params: text('params').notNull(),
    /** The warehouse table whose row holds NULL for this value, e.g. `results`. */
    table_name: text('table_name').notNull(),
    /** Where the value sits in the response, arrays as `[]`: `Classes[].Races[].Results[].ResultStart`. */
    path: text('path').notNull(),
    /** The value as received, as JSON text, truncated. */
    value: text('value'),
    /** The key columns of the row that holds NULL instead. */
    row_key: jsonb('row_key'),
    reason: text('reason').notNull(),
    created_at: tstz('created_at').notNull().default(sql`now()`),
  },
  (t) => [index('field_errors_scope_idx').on(t.source, t.endpoint, t.params), index('field_errors_table_idx').on(t.table_name, t.path)],
);

/**
 * Every JSON path seen in the responses pitwall loaded, per endpoint: the shape report behind
 * `pitwall drift`. Arrays are written `[]`. Counts add up over every body loaded (a body loaded
 * again counts again), so a field's presence rate is its count over its parent object's count.
 */
export const shapePaths = pitwall.table(
  'shape_paths',
  {
    ...sourced(),
    endpoint: text('endpoint').notNull(),
    path: text('path').notNull(),
    /** The JSON types seen at this path: object, array, string, number, boolean, null. */
    json_types: text('json_types').array().notNull(),
    /** How many times the path was present (for an object or array level: how many there were). */
    seen: bigint('seen', { mode: 'number' }).notNull(),
    /** Whether a typed column or a nested level models this path (src/endpoints/, and a PITWALL_SHAPES file's aliases). */
    modelled: boolean('modelled').notNull(),
    first_run_id: bigint('first_run_id', { mode: 'number' }),
    last_run_id: bigint('last_run_id', { mode: 'number' }),
    first_seen_at: tstz('first_seen_at').notNull().default(sql`now()`),
    last_seen_at: tstz('last_seen_at').notNull().default(sql`now()`),
    /** One value seen at the path, truncated (scalars only). */
    example: text('example'),
    /**
     * A modelled field every object that could hold it lacked in a run: the run that found it so
     * (and warned, once); cleared when the field is seen again.
     */
    missing_since_run_id: bigint('missing_since_run_id', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.source, t.endpoint, t.path] })],
);

/**
 * Which sources the configuration named, and when: every worker and `pitwall sync` records its
 * PITWALL_SOURCES at start (src/sync/sql/configured-sources.ts). A source missing from a start's
 * list is marked `unconfigured_since` then; its rows stay until `pitwall retire-source` marks them
 * deleted (`retired_at`) or, with `--delete`, removes them and this row.
 */
export const configuredSources = pitwall.table('sources', {
  source: text('source').primaryKey(),
  first_configured_at: tstz('first_configured_at').notNull().default(sql`now()`),
  last_configured_at: tstz('last_configured_at').notNull().default(sql`now()`),
  unconfigured_since: tstz('unconfigured_since'),
  retired_at: tstz('retired_at'),
  /**
   * The schedules the worker that owns the source runs (cron per job, and their time zone), as it
   * wrote them when it took the source (src/sync/sql/source-schedules.ts): `pitwall status` reads
   * its next runs from them, not from its own settings.
   */
  schedules: jsonb('schedules'),
  scheduled_by: text('scheduled_by'),
  scheduled_at: tstz('scheduled_at'),
});
