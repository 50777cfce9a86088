import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

/** How often a request that found every slot of its source taken asks again. */
const POLL_MS = 50;

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Runs a request while holding one of its source's slots in pitwall.request_slots. */
export type SharedSlot = <T>(send: () => Promise<T>, signal?: AbortSignal) => Promise<T>;

/**
 * A source's concurrency held across every process that shares the warehouse: a run's request
 * takes one of the source's `concurrency` rows before it goes out and gives it back when it has
 * answered, so two workers running the source's `live` and `full` have no more requests out
 * together than the source allows. In-process, the run client's own limit comes first, so a
 * process never asks for more slots than the concurrency.
 *
 * A slot names the run holding it, and is free once that run is no longer running: a run whose
 * process died is marked abandoned by the next run of its job as it starts, and by any run's
 * start or worker's sweep once its heartbeat is stale, so a crashed worker's slots do not hold
 * its successor up. The lease (`leaseMs`) is the last resort.
 */
export function sharedSlot(db: pg.Pool, source: string, runId: number, concurrency: number, leaseMs: number, sleep: Sleep): SharedSlot {
  let seeded: Promise<unknown> | undefined;
  const seed = () =>
    (seeded ??= queryWithRetry(
      db,
      `INSERT INTO pitwall.request_slots (source, slot) SELECT $1, generate_series(1, $2::int) ON CONFLICT DO NOTHING`,
      [source, concurrency],
    ).catch((err: unknown) => {
      seeded = undefined;
      throw err;
    }));
  const take = async (signal?: AbortSignal): Promise<number> => {
    await seed();
    for (;;) {
      signal?.throwIfAborted();
      // SKIP LOCKED: two processes taking at once each get another free slot, neither waits.
      const { rows } = await queryWithRetry<{ slot: number }>(
        db,
        `UPDATE pitwall.request_slots AS s SET run_id = $3, until = clock_timestamp() + make_interval(secs => $4)
          WHERE (s.source, s.slot) = (
                SELECT f.source, f.slot FROM pitwall.request_slots AS f
                 WHERE f.source = $1 AND f.slot <= $2
                   AND (f.run_id IS NULL OR f.until < clock_timestamp()
                        OR NOT EXISTS (SELECT FROM pitwall.sync_runs AS r WHERE r.run_id = f.run_id AND r.status = 'running'))
                 ORDER BY f.slot LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING s.slot`,
        [source, concurrency, runId, leaseMs / 1000],
      );
      if (rows[0]) return rows[0].slot;
      await sleep(POLL_MS, signal);
    }
  };
  const giveBack = (slot: number) =>
    queryWithRetry(db, `UPDATE pitwall.request_slots SET run_id = NULL, until = NULL WHERE source = $1 AND slot = $2 AND run_id = $3`, [
      source,
      slot,
      runId,
    ]);
  return async (send, signal) => {
    const slot = await take(signal);
    try {
      return await send();
    } finally {
      // A slot not given back (the database out of reach just now) frees itself when its lease ends.
      await giveBack(slot).catch(() => undefined);
    }
  };
}
