import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** Operational tables: what pitwall did, where each request scope stands, and what it refused. */
export const pitwall = pgSchema('pitwall');

const tstz = (name: string) => timestamp(name, { withTimezone: true });

/** One row per run of a job. `status`: running | succeeded | failed | skipped | interrupted | abandoned. */
export const syncRuns = pitwall.table(
  'sync_runs',
  {
    run_id: bigint('run_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
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
  },
  (t) => [index('sync_runs_job_started_idx').on(t.job, t.started_at)],
);

/**
 * One row per request scope: an endpoint plus its canonical query string *without* the key.
 * `response_hash` lets an identical response skip processing entirely.
 * `status`: ok | invalid (RequestValid 0) | error.
 */
export const syncState = pitwall.table(
  'sync_state',
  {
    endpoint: text('endpoint').notNull(),
    params: text('params').notNull(),
    last_attempt_at: tstz('last_attempt_at'),
    last_success_at: tstz('last_success_at'),
    status: text('status').notNull(),
    response_hash: text('response_hash'),
    item_count: integer('item_count'),
    last_error: text('last_error'),
    last_run_id: bigint('last_run_id', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.endpoint, t.params] })],
);

/** Items or whole bodies that failed validation. The key is never part of `params`. */
export const rejects = pitwall.table(
  'rejects',
  {
    reject_id: bigint('reject_id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
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
