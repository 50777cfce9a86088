import type pg from 'pg';

const sharedSessionPools = new WeakSet<pg.Pool>();

/**
 * Marks a pool whose connections all reach one and the same server session: PGlite is a single
 * Postgres backend, and pglite-socket multiplexes every client connection onto it. On such a
 * pool session-scoped state cannot tell connections apart; above all, a session advisory lock
 * taken on one connection is held by all of them. Code that relies on per-connection sessions
 * asks `isSessionShared` and uses a process-local equivalent.
 */
export function markSessionShared(pool: pg.Pool): void {
  sharedSessionPools.add(pool);
}

export function isSessionShared(pool: pg.Pool): boolean {
  return sharedSessionPools.has(pool);
}
