export interface BackoffOptions {
  /** Ceiling of the first retry's delay, in milliseconds. */
  baseMs: number;
  /** No delay's ceiling grows past this, in milliseconds. */
  capMs: number;
}

/** Delays for retrying the upstream: ~0.5 s first, never a ceiling above 30 s. */
export const DEFAULT_BACKOFF: BackoffOptions = Object.freeze({ baseMs: 500, capMs: 30_000 });

/**
 * Milliseconds to wait before retrying after failed attempt number `attempt` (1-based):
 * capped exponential backoff with full jitter, `random() * min(capMs, baseMs * 2^(attempt-1))`.
 * Full jitter spreads out workers that failed together, so they do not retry in lockstep.
 * `random` must return a number in [0, 1); inject a fixed one to test.
 */
export function backoffDelayMs(
  attempt: number,
  { baseMs, capMs }: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // 2 ** exponent overflows to Infinity for large attempts, which Math.min turns into the cap.
  const ceiling = Math.min(capMs, baseMs * 2 ** exponent);
  return Math.floor(random() * ceiling);
}
