import type pg from 'pg';

import { asObjid, OWNER_NAMESPACE, sourceLockId } from '../coordination/lock-ids.js';

/** The worker that owns a source now, as its lock session names itself: `pid@host`. */
export interface SourceOwner {
  worker: string;
  /** When the owner's lock session connected (the worker's start, or its last reconnection). */
  since: string;
}

/**
 * Which worker owns each of `sources` now: read from the ownership locks in pg_locks and the
 * owners' sessions in pg_stat_activity (src/coordination/lock-session.ts names them
 * `pitwall worker <pid>@<host>`). A source owned by nobody (no worker running, or between a
 * worker's death and the next beat of another) is absent. A role that may not see other roles'
 * sessions sees the owner's name as unknown.
 */
export async function sourceOwners(db: pg.Pool, sources: readonly string[]): Promise<Map<string, SourceOwner>> {
  if (sources.length === 0) return new Map();
  const ids = sources.map((s) => asObjid(sourceLockId(s)));
  const { rows } = await db.query<{ id: string; app: string | null; since: Date | null }>(
    `SELECT l.objid::bigint AS id, a.application_name AS app, a.backend_start AS since
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objsubid = 2 AND l.granted
        AND l.objid = ANY($2::bigint[]::oid[])
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [OWNER_NAMESPACE, ids],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const owners = new Map<string, SourceOwner>();
  sources.forEach((source, i) => {
    const row = byId.get(ids[i]!);
    if (!row) return;
    owners.set(source, { worker: row.app?.replace(/^pitwall worker /, '') || 'unknown', since: row.since?.toISOString() ?? '' });
  });
  return owners;
}
