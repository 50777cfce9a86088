import { OWNER_NAMESPACE, sourceLockId } from './lock-ids.js';
import type { LockSession } from './lock-session.js';

/**
 * Takes up to `room` of `candidates`, in their order, by each one's owner lock on `session`, and
 * returns the ones taken. Two workers that read who owns what at the same moment (started
 * together, or back together after a restart) see the same sources free and try the same first
 * ones; whichever loses a try goes on with the next candidates in the same beat, instead of
 * holding less than its share until the next one.
 */
export async function takeSources(session: LockSession, candidates: readonly string[], room: number): Promise<string[]> {
  const taken: string[] = [];
  let next = 0;
  while (taken.length < room && next < candidates.length) {
    const batch = candidates.slice(next, next + room - taken.length);
    next += batch.length;
    const rows = await session.query<{ id: number; ok: boolean }>(
      'SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id',
      [OWNER_NAMESPACE, batch.map(sourceLockId)],
    );
    const ok = new Set(rows.filter((r) => r.ok).map((r) => r.id));
    taken.push(...batch.filter((s) => ok.has(sourceLockId(s))));
  }
  return taken;
}
