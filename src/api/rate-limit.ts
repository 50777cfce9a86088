/** Time as the limiter and the client see it; inject a fake one (or use fake timers) to test. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * `setTimeout` as a promise that an AbortSignal can cancel. It rejects with the signal's reason,
 * as fetch does, so a caller's abort surfaces the same way wherever it lands.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads `Date.now()` and `setTimeout` at call time, so vitest's fake timers apply to it. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: abortableSleep,
};

export interface RateLimiter {
  /** Resolves when the caller may send one request. Rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<void>;
}

/**
 * At most `maxRps` requests per second, evenly spaced (a token bucket of burst 1): request n
 * may start no earlier than `1000 / maxRps` ms after request n-1. `maxRps` 0 means unlimited.
 * Slots are reserved synchronously in `acquire`, so concurrent callers never share one.
 */
export function createRateLimiter(maxRps: number, clock: Clock = systemClock): RateLimiter {
  if (!(maxRps >= 0) || !Number.isFinite(maxRps)) {
    throw new RangeError(`maxRps must be a finite number >= 0, got ${maxRps}`);
  }
  if (maxRps === 0) {
    return {
      acquire: async (signal) => {
        signal?.throwIfAborted();
      },
    };
  }
  const intervalMs = 1000 / maxRps;
  let nextFreeMs = -Infinity;

  return {
    async acquire(signal) {
      signal?.throwIfAborted();
      const now = clock.now();
      const slot = Math.max(now, nextFreeMs);
      nextFreeMs = slot + intervalMs;
      if (slot <= now) return;
      try {
        await clock.sleep(slot - now, signal);
      } catch (err) {
        // Hand the slot back when nobody has queued behind it, so an abort does not slow others.
        if (nextFreeMs === slot + intervalMs) nextFreeMs = slot;
        throw err;
      }
    },
  };
}
