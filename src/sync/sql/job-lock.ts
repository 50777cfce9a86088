import { STALE_AFTER_MS } from '../../coordination/lease.js';
import { goneHere } from '../../coordination/local-process.js';
import { jobLockId, LOCK_NAMESPACE } from '../../coordination/lock-ids.js';
import type { LockSession } from '../../coordination/lock-session.js';
import type { JobLock } from '../../coordination/types.js';

import { ABANDON, deadRun } from './dead-runs.js';

export type { JobLock } from '../../coordination/types.js';

interface Taken {
  id: number;
  ok: boolean;
  /** Runs of these jobs recorded running, alive by the rule and not known gone. */
  alive: Array<{ run_id: number; host: string | null; pid: number | null }> | null;
}

/**
 * The job locks of one run of `source`, taken on its process's lock session together or not at
 * all: a worker's run, a manual sync and a rebuild take them the same way. Null when another
 * session holds one, or when a run of one of those jobs (or a rebuild, which holds them all) is
 * still recorded running with a fresh heartbeat: its lock may be free only because its process's
 * session was cut, while the process itself still works within its lease. A run whose process is
 * known gone (this machine's, its pid no longer here: goneHere) is as dead as a stale one. Taken,
 * the same statement closes the jobs' dead runs (deadRun).
 *
 * The lock session's lock_timeout bounds the wait on a dead run's row, which a late write may hold.
 */
export async function tryRunLocks(session: LockSession, source: string, jobs: readonly string[], job: string, staleAfterMs = STALE_AFTER_MS): Promise<JobLock | null> {
  const ids = jobs.map((j) => jobLockId(source, j));
  const names = [...new Set([...jobs, job, 'rebuild'])];
  let gone: number[] = [];
  // At most twice: again only when every run in the way is found gone from this machine.
  for (;;) {
    const taken = await take(session, ids, [source, names, staleAfterMs, gone]);
    if (taken.every((t) => t.ok && !t.alive)) return session.jobLocks(ids);
    const held = taken.filter((t) => t.ok).map((t) => t.id);
    if (held.length > 0) await session.unlockJobs(held);
    const alive = taken[0]?.alive ?? [];
    const found = alive.filter((r) => goneHere(r.host, r.pid)).map((r) => Number(r.run_id));
    if (gone.length > 0 || !taken.every((t) => t.ok) || found.length === 0 || found.length < alive.length) return null;
    gone = found;
  }
}

async function take(session: LockSession, ids: readonly number[], [source, names, staleAfterMs, gone]: [string, string[], number, number[]]): Promise<Taken[]> {
  const dead = `((${deadRun('$5')}) OR run_id = ANY($6::bigint[]))`;
  try {
    return await session.query<Taken>(
      `WITH taken AS MATERIALIZED (SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id),
            alive AS MATERIALIZED (SELECT json_agg(json_build_object('run_id', run_id, 'host', host, 'pid', pid)) AS runs
                                     FROM pitwall.sync_runs WHERE source = $3 AND job = ANY($4) AND status = 'running' AND NOT ${dead}),
            closed AS (UPDATE pitwall.sync_runs SET ${ABANDON}
                        WHERE source = $3 AND job = ANY($4) AND status = 'running' AND ${dead}
                          AND (SELECT bool_and(ok) FROM taken) AND (SELECT runs FROM alive) IS NULL)
       SELECT id, ok, (SELECT runs FROM alive) AS alive FROM taken`,
      [LOCK_NAMESPACE, ids, source, names, staleAfterMs, gone],
    );
  } catch (err) {
    // Session locks outlive a failed statement: give back whatever it took.
    await session.unlockJobs(ids).catch(() => undefined);
    throw err;
  }
}
