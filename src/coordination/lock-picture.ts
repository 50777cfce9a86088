import { asObjid, OWNER_NAMESPACE, PRESENCE_NAMESPACE, sourceLockId, WORKER_PRESENCE } from './lock-ids.js';

/** Who holds which coordination lock in this database now, read from pg_locks in one statement. */
export interface LockPicture {
  /** Sessions of live workers (their presence lock). */
  workers: number;
  /** Processes that share the cap on all sources: the workers and every guest (a manual sync, a probe). */
  processes: number;
  /** The sources some session owns, by their lock id (as pg_locks shows it). */
  owned: ReadonlySet<number>;
  /** Guests working each source beside its owner, by the source's lock id. */
  guests: ReadonlyMap<number, number>;
  /**
   * The sources worked, counted once per process working each: owned ones and every guest's. The
   * cap on all sources is shared out in proportion (`globalShareOf`).
   */
  sourcesWorked: number;
}

/** Read with LOCK_PICTURE_PARAMS: one statement, whoever asks (a worker's beat, a guest's look). */
export const LOCK_PICTURE_SQL = `SELECT classid::int AS ns, objid::bigint AS id, pid FROM pg_locks
  WHERE locktype = 'advisory' AND classid IN ($1::oid, $2::oid) AND objsubid = 2 AND granted
    AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
export const LOCK_PICTURE_PARAMS = [OWNER_NAMESPACE, PRESENCE_NAMESPACE];

export function lockPicture(rows: ReadonlyArray<{ ns: number; id: string | number; pid: number }>): LockPicture {
  const owned = new Set<number>();
  const guests = new Map<number, number>();
  const present = new Set<number>();
  let workers = 0;
  let guestSources = 0;
  for (const r of rows) {
    const id = Number(r.id);
    if (r.ns === OWNER_NAMESPACE) owned.add(id);
    else if (id === WORKER_PRESENCE) {
      workers += 1;
      present.add(r.pid);
    } else {
      guests.set(id, (guests.get(id) ?? 0) + 1);
      guestSources += 1;
      present.add(r.pid);
    }
  }
  return { workers, processes: Math.max(1, present.size), owned, guests, sourcesWorked: owned.size + guestSources };
}

/**
 * A process's share of the cap on all sources: the sources it works over all the sources worked,
 * so that a worker that owns most sources (the first of several started together) sends most
 * requests, and an idle one holds back none. Never 0, which a limiter reads as no cap: a process
 * with no counted source yet may send a request a second or so more while the others' next looks
 * count its sources, within the cap + one per process that the busiest second allows.
 */
export function globalShareOf(picture: LockPicture, sourcesWorkedHere: number): number {
  if (picture.processes === 1) return 1;
  return Math.max(1, sourcesWorkedHere) / Math.max(1, picture.sourcesWorked, sourcesWorkedHere);
}

/** The share of `source`'s rate each of the processes working it takes: its owner and its guests alike. */
export function sourceShareOf(picture: LockPicture, source: string): number {
  const id = asObjid(sourceLockId(source));
  const holders = (picture.owned.has(id) ? 1 : 0) + (picture.guests.get(id) ?? 0);
  return holders > 1 ? 1 / holders : 1;
}
