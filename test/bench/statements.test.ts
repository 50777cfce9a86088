import { describe, expect, it } from 'vitest';

import { BENCH_QUERIES, classify } from '../../bench/lib/statements.js';

/** Statements as pg_stat_statements kept them in a run of the sites section (constants become $n). */
describe("the sites section's statement classes", () => {
  it.each([
    ['INSERT INTO pitwall.request_pace AS p (source, next_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2)) ON CONFLICT (source) DO UPDATE SET next_at = $3', 'coordination'],
    ['UPDATE pitwall.request_slots SET run_id = $4, until = $5 WHERE source = $1 AND slot = $2 AND run_id = $3', 'coordination'],
    ['UPDATE pitwall.sync_runs SET heartbeat_at = now(), requests = $2, retries = $3 WHERE run_id = $1', 'coordination'],
    ['SELECT status FROM pitwall.sync_runs WHERE source = $1 AND job = $2 AND started_at >= $3', 'coordination'],
    ['with j as ( select jobs.job_queue_id from "graphile_worker"._private_jobs as jobs where jobs.is_available = true )', 'coordination'],
    ['SELECT pg_try_advisory_lock($1, $2) AS ok', 'coordination'],
    ['select pg_notify($1, $2)', 'coordination'],
    ['INSERT INTO pitwall.sync_runs (source, job, trigger, status, host, pid) VALUES ($1, $2, $3, $4, $5, $6) RETURNING run_id', 'runRecord'],
    ['UPDATE pitwall.sync_runs SET status = $2, finished_at = now(), requests = $3 WHERE run_id = $1', 'runRecord'],
    ['WITH written AS ( INSERT INTO "mrp"."results" AS t ("source", "event_id") VALUES ($1, $2) RETURNING 1) SELECT count(*) FROM written', 'load'],
    ['WITH cleared AS (DELETE FROM pitwall.field_errors WHERE source = $6) INSERT INTO pitwall.sync_state AS s (source) VALUES ($1)', 'load'],
    ['begin', 'load'],
    ['commit', 'load'],
    ['insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values($1, $2)', 'setup'],
    ['insert into "graphile_worker".migrations (id, breaking) values ($1, $2)', 'setup'],
    ['CREATE TABLE pitwall.sync_runs (run_id bigint)', 'setup'],
    ["SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = $1 AND status = $2", 'bench'],
    ['SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', 'bench'],
  ])('%s: %s', (query, kind) => {
    expect(classify(query)).toBe(kind);
  });

  it('knows every statement the bench polls with as its own, as pg_stat_statements writes it', () => {
    for (const q of Object.values(BENCH_QUERIES)) expect(classify(q.replace(/'[^']*'/g, '$1')), q).toBe('bench');
  });
});
