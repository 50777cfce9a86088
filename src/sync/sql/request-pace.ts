import type pg from 'pg';

import type { RateLimiter } from '../../api/rate-limit.js';
import { queryWithRetry } from '../../db/transaction.js';

/**
 * The pitwall.request_pace row of the cap on all sources together (PITWALL_GLOBAL_MAX_RPS). No
 * source can be named so: a name is lower-case letters, digits, - and _ (src/sources.ts).
 */
export const ALL_SOURCES = '*';

export interface PaceCaps {
  /** The source's own requests per second; 0 = none. */
  maxRps: number;
  /** Requests per second of all sources together; 0 = none. */
  globalMaxRps: number;
}

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * A source's request rate, and the rate of all sources together, held across every process that
 * shares the warehouse: each request takes a slot from pitwall.request_pace (one short statement
 * on the database's clock) and waits for it, so a live run beside a full one, three workers' runs
 * and every other source's keep to the source's `maxRps` and to `globalMaxRps` together rather
 * than each on its own. Unlimited (no statement) when both are 0.
 */
export function sharedRateLimiter(db: pg.Pool, source: string, caps: PaceCaps, sleep: Sleep): RateLimiter {
  const { maxRps, globalMaxRps } = caps;
  if (maxRps === 0 && globalMaxRps === 0) return { acquire: async (signal) => signal?.throwIfAborted() };
  if (globalMaxRps === 0) return queuedLimiter(db, source, maxRps, sleep);
  if (maxRps === 0) return queuedLimiter(db, ALL_SOURCES, globalMaxRps, sleep);
  return jointLimiter(db, source, caps, sleep);
}

/**
 * One cap: each request reserves the row's next slot, however far ahead, and waits for it. The
 * row's lock orders the reservations, so they are evenly spaced whoever makes them.
 */
function queuedLimiter(db: pg.Pool, row: string, rps: number, sleep: Sleep): RateLimiter {
  const intervalSecs = 1 / rps;
  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      const { rows } = await queryWithRetry<{ wait_ms: number }>(
        db,
        `INSERT INTO pitwall.request_pace AS p (source, next_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2))
         ON CONFLICT (source) DO UPDATE SET next_at = GREATEST(p.next_at, clock_timestamp()) + make_interval(secs => $2)
         RETURNING (extract(epoch FROM next_at - clock_timestamp()) - $2)::float8 * 1000 AS wait_ms`,
        [row, intervalSecs],
      );
      const waitMs = rows[0]?.wait_ms ?? 0;
      if (waitMs > 0) await sleep(waitMs, signal);
    },
  };
}

/**
 * Both caps. A request takes its slot at once from both rows, in one statement that locks them
 * (in one order, so never a deadlock): the later of now and the shared row's next slot, once the
 * source's own is due, pushing both rows on from it. It never reserves ahead of the source's
 * own slot: such a slot, taken from the shared row, would hold that row for every other source
 * until then (a source at 1 request/s with 4 requests waiting would idle all the others for 4 s),
 * and reserved from each row on its own, the request would go at the later of two slots and
 * the other row's spacing would not hold. A source not yet due is told how long to wait and asks
 * again then.
 *
 * So that one request per process, not each of the source's requests waiting, asks again, this
 * process's requests of a source take turns: the next one asks only when the slot it learned
 * from the last is due, one statement per request when no other process runs the source.
 */
function jointLimiter(db: pg.Pool, source: string, caps: PaceCaps, sleep: Sleep): RateLimiter {
  const turns = turnsOf(db, source);
  const sourceIntervalMs = 1000 / caps.maxRps;
  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      const waitMs = await inTurn(turns, signal, async () => {
        await seedRows(turns, db, source);
        for (;;) {
          const early = turns.dueAt - performance.now();
          if (early > 0) await sleep(early, signal);
          const slot = await takeBothSlots(db, source, caps);
          turns.dueAt = performance.now() + slot.waitMs + (slot.reserved ? sourceIntervalMs : 0);
          if (slot.reserved) return slot.waitMs;
        }
      });
      if (waitMs > 0) await sleep(waitMs, signal);
    },
  };
}

async function takeBothSlots(db: pg.Pool, source: string, caps: PaceCaps): Promise<{ reserved: boolean; waitMs: number }> {
  // The locked rows' newest versions (FOR UPDATE waits out another process's reservation and
  // reads what it wrote) decide the slot; the upsert then writes from that slot.
  const { rows } = await queryWithRetry<{ reserved: boolean; wait_ms: number }>(
    db,
    `WITH pace AS MATERIALIZED (
       SELECT clock_timestamp() AS now,
              max(next_at) FILTER (WHERE source = $1) AS source_next,
              max(next_at) FILTER (WHERE source = $2) AS all_next
       FROM (SELECT source, next_at FROM pitwall.request_pace WHERE source IN ($1, $2) ORDER BY source FOR UPDATE) AS locked
     ), slot AS MATERIALIZED (
       SELECT CASE WHEN source_next IS NULL OR source_next <= now THEN GREATEST(now, all_next) END AS at, source_next FROM pace
     ), taken AS (
       INSERT INTO pitwall.request_pace AS p (source, next_at)
       SELECT cap.source, slot.at + make_interval(secs => cap.secs)
       FROM slot CROSS JOIN (VALUES ($1::text, $3::float8), ($2::text, $4::float8)) AS cap (source, secs)
       WHERE slot.at IS NOT NULL
       ON CONFLICT (source) DO UPDATE SET next_at = GREATEST(p.next_at, EXCLUDED.next_at)
     )
     SELECT at IS NOT NULL AS reserved, extract(epoch FROM COALESCE(at, source_next) - clock_timestamp())::float8 * 1000 AS wait_ms FROM slot`,
    [source, ALL_SOURCES, 1 / caps.maxRps, 1 / caps.globalMaxRps],
  );
  const row = rows[0];
  return { reserved: row?.reserved ?? true, waitMs: Math.max(0, row?.wait_ms ?? 0) };
}

/**
 * This process's line for one source's slots in one warehouse: the end of the line, when the
 * source's next slot is due as the last answer said (performance.now() ms), and whether both
 * rows exist.
 */
interface SourceTurns {
  tail: Promise<void>;
  dueAt: number;
  seeded?: Promise<unknown>;
}

// By pool: a pool is this process's way to one warehouse, whose source names these are.
const turnsByPool = new WeakMap<pg.Pool, Map<string, SourceTurns>>();

function turnsOf(db: pg.Pool, source: string): SourceTurns {
  let bySource = turnsByPool.get(db);
  if (!bySource) turnsByPool.set(db, (bySource = new Map()));
  let turns = bySource.get(source);
  if (!turns) bySource.set(source, (turns = { tail: Promise.resolve(), dueAt: 0 }));
  return turns;
}

/**
 * Rows locked FOR UPDATE must exist: two processes' first requests, finding no row to lock,
 * would both take the same slot. Once per process and source; a failure is tried again next time.
 */
function seedRows(turns: SourceTurns, db: pg.Pool, source: string): Promise<unknown> {
  turns.seeded ??= queryWithRetry(
    db,
    `INSERT INTO pitwall.request_pace (source, next_at) VALUES ($1, '-infinity'), ($2, '-infinity') ON CONFLICT (source) DO NOTHING`,
    [source, ALL_SOURCES],
  ).catch((err: unknown) => {
    turns.seeded = undefined;
    throw err;
  });
  return turns.seeded;
}

/**
 * Runs `fn` once every earlier caller's has ended, in call order. A caller aborted while it
 * waits leaves the line at once; the one behind it still waits for those ahead.
 */
async function inTurn<T>(turns: SourceTurns, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const ahead = turns.tail;
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  turns.tail = ahead.then(() => mine);
  try {
    await untilDone(ahead, signal);
    return await fn();
  } finally {
    done();
  }
}

/** `ahead` (which never rejects), or the signal's reason if it aborts first. */
function untilDone(ahead: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return ahead;
  signal.throwIfAborted();
  // A signal of its own to listen on: all of a run's requests waiting in line share the run's
  // signal, and a listener each would pass its listener limit.
  const own = AbortSignal.any([signal]);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(own.reason);
    own.addEventListener('abort', onAbort, { once: true });
    void ahead.then(() => {
      own.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
