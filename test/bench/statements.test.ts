import { describe, expect, it } from 'vitest';

import { BENCH_QUERIES, classify } from '../../bench/lib/statements.js';

/** Statements as pg_stat_statements kept them in a run of the sites section (constants become $n). */
describe("the sites section's statement classes", () => {
  it.each([
    // The lock sessions: an owner taking sources, a worker's and a guest's presence, the look at pg_locks every beat.
    ['SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id', 'coordination'],
    ['SELECT pg_advisory_lock_shared($1, $2)', 'coordination'],
    ['SELECT pg_advisory_unlock_shared($1, id) FROM unnest($2::int[]) AS id', 'coordination'],
    [
      'SELECT classid::int AS ns, objid::bigint AS id, pid FROM pg_locks WHERE locktype = $1 AND classid IN ($2, $3) AND objsubid = $4 AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())',
      'coordination',
    ],
    // A worker's run takes its job locks on the lock session and closes its job's stale rows in one statement.
    [
      'WITH taken AS MATERIALIZED (SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id), closed AS (UPDATE pitwall.sync_runs SET status = $5 WHERE source = $3 AND job = $4) SELECT id, ok FROM taken',
      'coordination',
    ],
    // A job lock taken alone.
    ['SELECT pg_try_advisory_lock($1, $2) AS ok', 'coordination'],
    // The one heartbeat per beat, a manual run's own, dead-run marking, the catch-up's reads.
    ['UPDATE pitwall.sync_runs r SET heartbeat_at = now(), requests = b.requests FROM jsonb_to_recordset($1::jsonb) AS b(run_id bigint, requests int) WHERE r.run_id = b.run_id AND r.status = $2', 'coordination'],
    ['UPDATE pitwall.sync_runs SET heartbeat_at = now(), requests = $2, retries = $3 WHERE run_id = $1 AND status = $4', 'coordination'],
    ['WITH run_locks(source, job, id) AS (SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])) UPDATE pitwall.sync_runs r SET status = $6, finished_at = COALESCE(heartbeat_at, started_at)', 'coordination'],
    ['UPDATE pitwall.sync_runs SET status = $3, finished_at = COALESCE(heartbeat_at, started_at) WHERE source = $2 AND job = $1 AND status = $4', 'coordination'],
    ['SELECT DISTINCT source FROM pitwall.sync_runs WHERE status = $1', 'coordination'],
    ['SELECT status FROM pitwall.sync_runs WHERE source = $1 AND job = $2 AND started_at >= $3', 'coordination'],
    // The fence at the end of each load transaction: counted apart, one per transaction that writes.
    ['SELECT status FROM pitwall.sync_runs WHERE run_id = $1 FOR SHARE', 'fence'],
    ['INSERT INTO pitwall.sync_runs (source, job, trigger, status, host, pid) VALUES ($1, $2, $3, $4, $5, $6) RETURNING run_id', 'runRecord'],
    ['UPDATE pitwall.sync_runs SET status = $2, finished_at = now(), requests = $3 WHERE run_id = $1', 'runRecord'],
    ['WITH written AS ( INSERT INTO "mrp"."results" AS t ("source", "event_id") VALUES ($1, $2) RETURNING 1) SELECT count(*) FROM written', 'load'],
    ['WITH cleared AS (DELETE FROM pitwall.field_errors WHERE source = $6) INSERT INTO pitwall.sync_state AS s (source) VALUES ($1)', 'load'],
    ['begin', 'load'],
    ['commit', 'load'],
    ['insert into "drizzle"."__drizzle_migrations" ("hash", "created_at") values($1, $2)', 'setup'],
    ['DROP SCHEMA IF EXISTS "graphile_worker" CASCADE', 'setup'],
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
