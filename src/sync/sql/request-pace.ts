import type pg from 'pg';

import type { RateLimiter } from '../../api/rate-limit.js';
import { queryWithRetry } from '../../db/transaction.js';

/**
 * A source's request rate held across every process that shares the warehouse: each request
 * reserves the source's next slot in pitwall.request_pace (one short statement on the database's
 * clock) and waits for it, so a live run beside a full one, or three workers' runs, keep to the
 * source's `maxRps` together rather than each on its own. Unlimited (no statement) at 0.
 */
export function sharedRateLimiter(
  db: pg.Pool,
  source: string,
  maxRps: number,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): RateLimiter {
  if (maxRps === 0) return { acquire: async (signal) => signal?.throwIfAborted() };
  const intervalSecs = 1 / maxRps;
  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      const { rows } = await queryWithRetry<{ wait_ms: number }>(
        db,
        `INSERT INTO pitwall.request_pace AS p (source, next_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2))
         ON CONFLICT (source) DO UPDATE SET next_at = GREATEST(p.next_at, clock_timestamp()) + make_interval(secs => $2)
         RETURNING (extract(epoch FROM next_at - clock_timestamp()) - $2)::float8 * 1000 AS wait_ms`,
        [source, intervalSecs],
      );
      const waitMs = rows[0]?.wait_ms ?? 0;
      if (waitMs > 0) await sleep(waitMs, signal);
    },
  };
}
