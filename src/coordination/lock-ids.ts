import { createHash } from 'node:crypto';

import { DEFAULT_SOURCE } from '../db/schema/columns.js';

/**
 * The advisory locks that say who works which source. Each is a pair (namespace, id):
 *
 * - LOCK_NAMESPACE, a source's job's id: held alone by the run of that job (or a rebuild, which
 *   takes every job's), on the run's process's lock session, so one source's job never runs twice at
 *   once (src/sync/sql/job-lock.ts).
 * - OWNER_NAMESPACE, a source's id: held alone by the worker that owns the source, on that
 *   worker's lock session, for as long as it owns it. A worker killed with `kill -9` loses its
 *   session and with it every lock, at once; one stopped (SIGSTOP) past the server's idle expiry
 *   loses it too (src/coordination/lease.ts).
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

/** First half of every pitwall advisory-lock key, so pitwall's locks never collide with others'. */
export const LOCK_NAMESPACE = 730_511;

const JOB_LOCK_IDS: Record<string, number> = { full: 1, season: 2, live: 3 };

/**
 * The second half of the advisory lock of one source's job. The default source keeps the ids
 * pitwall used before sources existed (1, 2, 3). Another source's is taken from a digest of its
 * name and the job, kept clear of those: two pairs share one only by a 1-in-4-billion chance, and
 * then merely take turns.
 */
export function jobLockId(source: string, job: string): number {
  const id = JOB_LOCK_IDS[job];
  if (id === undefined) throw new Error(`no advisory lock id for job ${job}`);
  if (source === DEFAULT_SOURCE) return id;
  const digest = createHash('sha256').update(`${source}\0${job}`).digest().readInt32BE(0);
  return digest >= 0 && digest < 16 ? digest + 16 : digest;
}

/**
 * The second halves of the advisory locks a live run of one source's `job` holds, as
 * pg_locks.objid shows them (an oid: the int4 read as unsigned): its own job's, or for a rebuild
 * every job's (it takes them all, REBUILD_LOCKS).
 */
export function runLockIds(source: string, job: string): number[] {
  const jobs = job === 'rebuild' ? Object.keys(JOB_LOCK_IDS) : job in JOB_LOCK_IDS ? [job] : [];
  return jobs.map((j) => jobLockId(source, j) >>> 0);
}

