import type pg from 'pg';

import { abortableSleep } from '../api/rate-limit.js';

import { BEAT_MS } from './lease.js';
import { asObjid, PRESENCE_NAMESPACE, sourceLockId } from './lock-ids.js';
import { globalShareOf, LOCK_PICTURE_PARAMS, LOCK_PICTURE_SQL, lockPicture, sourceShareOf, type LockPicture } from './lock-picture.js';
import type { PaceShares } from './pace.js';

export interface GuestPlace {
  shares: PaceShares;
  /**
   * Settles when the guest may send: at once when no worker is at work (or none owns its sources
   * and there is no cap on all keys to share); otherwise one beat later, by when every worker has
   * seen the guest and given it its share.
   */
  ready(signal?: AbortSignal): Promise<void>;
  /** Whether a worker owned one of the sources when the guest arrived. */
  beside: boolean;
  leave(): Promise<void>;
}

/**
 * A process that works sources without owning them (a manual `pitwall sync`, a probe) makes
 * itself known with a shared presence lock per source, held on one pooled connection while it
 * works: the owner of each source then gives it an equal share of the source's rate, and every
 * worker counts it when sharing out the cap on all sources. It looks again every beat, as the
 * workers do, so a worker that arrives later is seen too.
 */
export async function takeGuestPlace(
  pool: pg.Pool,
  sources: readonly string[],
  options: { beatMs?: number; globalCap?: boolean } = {},
): Promise<GuestPlace> {
  const beatMs = options.beatMs ?? BEAT_MS;
  const client = await pool.connect();
  let picture: LockPicture;
  try {
    await client.query('SELECT pg_advisory_lock_shared($1, id) FROM unnest($2::int[]) AS id', [PRESENCE_NAMESPACE, sources.map(sourceLockId)]);
    picture = lockPicture((await client.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS)).rows);
  } catch (err) {
    client.release(err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
  const beside = sources.some((s) => picture.owned.has(asObjid(sourceLockId(s))));
  // The workers count the guest in their shares of the cap on all keys from their next beat on.
  const waitForShares = beside || (options.globalCap === true && picture.workers > 0);
  let looking: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    looking = looking.then(async () => {
      try {
        picture = lockPicture((await client.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS)).rows);
      } catch {
        // The last picture stands until the next look.
      }
    });
  }, beatMs);
  timer.unref();
  let left = false;
  return {
    shares: { sourceShare: (source) => sourceShareOf(picture, source), globalShare: () => globalShareOf(picture, sources.length) },
    ready: async (signal) => (waitForShares ? abortableSleep(beatMs + 1_000, signal) : undefined),
    beside,
    leave: async () => {
      if (left) return;
      left = true;
      clearInterval(timer);
      await looking;
      try {
        await client.query('SELECT pg_advisory_unlock_shared($1, id) FROM unnest($2::int[]) AS id', [PRESENCE_NAMESPACE, sources.map(sourceLockId)]);
        client.release();
      } catch (err) {
        client.release(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
}
