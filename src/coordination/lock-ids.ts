import { createHash } from 'node:crypto';

/**
 * The advisory locks that say who works which source. Each is a pair (namespace, id); the job
 * locks (src/sync/sql/job-lock.ts) have a namespace of their own, 730_511.
 *
 * - OWNER_NAMESPACE, a source's id: held alone by the worker that owns the source, on that
 *   worker's lock session, for as long as it owns it. A worker killed with `kill -9` loses its
 *   session and with it every lock, at once; a worker that is only slow (SIGSTOP) keeps them.
 * - PRESENCE_NAMESPACE, WORKER_PRESENCE: held shared by every live worker; their number is how the
 *   cap on all sources together is shared out.
 * - PRESENCE_NAMESPACE, a source's id: held shared by a process that works a source without owning
 *   it (a manual sync, a probe): its owner gives it half of the source's rate.
 */
export const OWNER_NAMESPACE = 730_512;
export const PRESENCE_NAMESPACE = 730_513;
export const WORKER_PRESENCE = 0;

/** A source's id in both namespaces: a digest of its name, never WORKER_PRESENCE. */
export function sourceLockId(source: string): number {
  const id = createHash('sha256').update(`source\0${source}`).digest().readInt32BE(0);
  return id === WORKER_PRESENCE ? 1 : id;
}

/** The id as pg_locks.objid shows it (an oid: the int4 read as unsigned). */
export const asObjid = (id: number): number => id >>> 0;
