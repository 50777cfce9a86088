const FIRST_DELAY_MS = 5 * 60_000;
const MAX_DELAY_MS = 6 * 3_600_000;

/**
 * How long after its last failed catch-up a job's next catch-up waits, in ms, given how many of
 * its catch-ups have failed (or been abandoned) since its last success: none after 0, 5 minutes
 * after 1, doubling per further failure up to 6 hours. A worker that crashes mid-walk and is
 * restarted at once would otherwise start the same walk at every start.
 *
 * Not jittered: one process at a time holds a job's lock, so there is no herd of workers to spread.
 */
export function catchUpDelayMs(failedCatchUps: number): number {
  if (failedCatchUps <= 0) return 0;
  // 2^7 x 5 min is past the cap already; stopping the exponent there keeps it finite.
  return Math.min(FIRST_DELAY_MS * 2 ** Math.min(failedCatchUps - 1, 7), MAX_DELAY_MS);
}
