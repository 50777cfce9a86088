import { asObjid, LOCK_NAMESPACE, OWNER_NAMESPACE, runLockIds, sourceLockId } from '../coordination/lock-ids.js';
import type { Reader } from '../db/reader.js';

/** The worker that owns a source now, as its lock session names itself: `pid@host`. */
export interface SourceOwner {
  worker: string;
  /** When the owner's lock session connected (the worker's start, or its last reconnection). */
  since: string;
}

/** Who holds which pitwall lock, as one read of pg_locks saw it. */
export interface HeldLocks {
  /** Which worker owns each source now; a source owned by nobody is absent. */
  owners: Map<string, SourceOwner>;
  /** Whether some session holds a lock a live run of `source`'s `job` holds (src/sync/sql/job-lock.ts). */
  runLockHeld(source: string, job: string): boolean;
}

/**
 * The ownership locks of `sources` and every job lock, in one statement: pg_locks is no MVCC
 * table (two reads of it in one transaction may differ), so the owners and the runs' locks that
 * the status views set side by side come from one look. Owners are named by their sessions in
 * pg_stat_activity (src/coordination/lock-session.ts names them `pitwall worker <pid>@<host>`); a
 * role that may not see other roles' sessions sees the owner's name as unknown. A source owned by
 * nobody (no worker running, or between a worker's death and the next beat of another) is absent.
 */
export async function heldLocks(db: Reader, sources: readonly string[]): Promise<HeldLocks> {
  const ids = sources.map((s) => asObjid(sourceLockId(s)));
  const { rows } = await db.query<{ ns: number; id: string; app: string | null; since: Date | null }>(
    `SELECT l.classid::int AS ns, l.objid::bigint AS id, a.application_name AS app, a.backend_start AS since
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted
        AND (l.classid = $2::oid OR (l.classid = $1::oid AND l.objid = ANY($3::bigint[]::oid[])))
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [OWNER_NAMESPACE, LOCK_NAMESPACE, ids],
  );
  const held = (ns: number) => new Map(rows.filter((r) => r.ns === ns).map((r) => [Number(r.id), r]));
  const owned = held(OWNER_NAMESPACE);
  const jobLocks = held(LOCK_NAMESPACE);
  const owners = new Map<string, SourceOwner>();
  sources.forEach((source, i) => {
    const row = owned.get(ids[i]!);
    if (!row) return;
    owners.set(source, { worker: row.app?.replace(/^pitwall worker /, '') || 'unknown', since: row.since?.toISOString() ?? '' });
  });
  return { owners, runLockHeld: (source, job) => runLockIds(source, job).some((id) => jobLocks.has(id)) };
}
