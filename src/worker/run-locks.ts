import { jobLockId, LOCK_NAMESPACE } from '../coordination/lock-ids.js';
import type { LockSession } from '../coordination/lock-session.js';
import type { JobLock } from '../coordination/types.js';
import { ABANDON } from '../sync/sql/dead-runs.js';

/**
 * The job locks of one run of `source`, taken on the worker's lock session together or not at
 * all (null when another process holds one: a manual sync beside the worker never runs a job
 * twice at once). Taken, they prove that no live process runs `job`, so the same statement closes
 * its rows still marked running, as markAbandoned does for a run of its own.
 */
export async function tryRunLocks(session: LockSession, source: string, jobs: readonly string[], job: string): Promise<JobLock | null> {
  const ids = jobs.map((j) => jobLockId(source, j));
  let taken: Array<{ id: number; ok: boolean }>;
  try {
    taken = await session.query<{ id: number; ok: boolean }>(
      `WITH taken AS MATERIALIZED (SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id),
            closed AS (UPDATE pitwall.sync_runs SET ${ABANDON}
                        WHERE source = $3 AND job = $4 AND status = 'running' AND (SELECT bool_and(ok) FROM taken))
       SELECT id, ok FROM taken`,
      [LOCK_NAMESPACE, ids, source, job],
    );
  } catch (err) {
    // Session locks outlive a failed statement: give back whatever it took.
    await session.unlockJobs(ids).catch(() => undefined);
    throw err;
  }
  if (!taken.every((t) => t.ok)) {
    const held = taken.filter((t) => t.ok).map((t) => t.id);
    if (held.length > 0) await session.unlockJobs(held);
    return null;
  }
  return session.jobLocks(ids);
}
