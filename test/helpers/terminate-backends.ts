import type pg from 'pg';

/**
 * Ends the backends of `pool`'s own database that `where` picks (a condition on
 * pg_stat_activity's row, with `params` as $1...), never the calling connection, and returns
 * their pids. The test files share one server, so the backends are chosen first, in a
 * materialised CTE, and only then ended: with pg_terminate_backend in the same WHERE, the planner
 * once called it on every client of the server before the condition naming the database, and
 * other files' sessions were ended.
 */
export async function terminateBackends(pool: pg.Pool, where = 'true', params: unknown[] = []): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>(
    `WITH chosen AS MATERIALIZED (
       SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND (${where})
     )
     SELECT pid FROM chosen WHERE pg_terminate_backend(pid)`,
    params,
  );
  return rows.map((r) => r.pid);
}
