/**
 * The lease arithmetic every process of pitwall lives by (docs/scaling.md, "The lease"). A
 * process's right to work is its lock session's last answered beat: it holds its sources and its
 * runs for LEASE_MS after it *sent* that beat, and stops every request and every write of them
 * when that time passes without a newer answer, whatever its connections do. Everybody else
 * takes a run for dead only once its heartbeat, written by that same beat, is STALE_AFTER_MS old
 * on the server's clock, which is later than the holder's own deadline: the server wrote the
 * heartbeat after the beat was sent.
 *
 *   BEAT_MS < LEASE_MS < STALE_AFTER_MS < SERVER_IDLE_EXPIRY_MS
 *
 * A beat may be late or lost once without the lease running out (LEASE_MS > 2 beats). The margin
 * between LEASE_MS and STALE_AFTER_MS covers the two machines' clocks running at slightly
 * different rates, never a timer firing late: every send and every write checks the lease
 * itself, synchronously or inside its own transaction.
 */

/** How often a process beats on its lock session: looks at who owns what, and writes its runs' heartbeats. */
export const BEAT_MS = 5_000;

/** The holder's own deadline, from the send of its last answered beat. */
export const LEASE_MS = 12_000;

/** A running run whose heartbeat is older than this (server clock) is dead: its holder has stopped it. */
export const STALE_AFTER_MS = 15_000;

/**
 * The server ends a lock session that has said nothing for this long (idle_session_timeout), and
 * with it every lock of it: a holder stopped (SIGSTOP) or cut off by a link that still looks open
 * frees its sources without waiting for TCP, which can take a quarter of an hour.
 */
export const SERVER_IDLE_EXPIRY_MS = 20_000;

/**
 * The server drops a lost machine's session after 10 s of silence and 3 probes 5 s apart (25 s);
 * the client probes its side from 10 s on too, so a dead link is noticed while nothing is sent.
 */
export const KEEPALIVE = { idleS: 10, intervalS: 5, count: 3 } as const;
export const LOST_MACHINE_MS = (KEEPALIVE.idleS + KEEPALIVE.intervalS * KEEPALIVE.count) * 1000;
