/**
 * Whether a body still arriving at its attempt's deadline is slow (`slow-body`) or only large.
 *
 * The deadline alone cannot tell them apart: a large body that a busy machine reads slowly was
 * still arriving at it, and was `slow-body` there and `too-large` on a quiet machine. What a slow
 * upstream does that a busy reader does not is send few bytes: a trickle sends a byte a second, a
 * loopback or a real link hundreds of megabytes. So at the deadline a body is judged by its pace,
 * its bytes received over the time it has been arriving: under SLOW_BODY_BYTES_PER_S it is slow
 * and the attempt ends; at or over it, it is read on, and judged again when that pace would fall
 * under the floor, so it ends whole, past its size limit (`too-large`), or slow. Time the reader
 * kept the connection paused (its decoder behind on a busy machine, or the process's byte budget
 * full) is its own, not the upstream's, and a body received whole is only being decoded: neither
 * is judged.
 *
 * Bound: a body read on past the deadline keeps the floor's pace, so it reaches
 * PITWALL_MAX_BODY_BYTES within that many bytes / SLOW_BODY_BYTES_PER_S of arriving (128 s for
 * the default 32 MiB), not counting budget waits.
 */
export const SLOW_BODY_BYTES_PER_S = 256 * 1024;

/** How soon a body that was not judged (paused, or received whole and decoding) is looked at again. */
const RECHECK_MS = 1_000;

export class BodyPace {
  private headersAt: number | null = null;
  private received = 0;
  private ended = false;
  private pausedSince: number | null = null;
  private pausedMs = 0;

  /** `now`: milliseconds, from any origin (the client's clock). */
  constructor(private readonly now: () => number) {}

  /** The status line and headers came: the body starts arriving. */
  headersCame(): void {
    this.headersAt ??= this.now();
  }

  /** Bytes of the body as received (before decoding); `ended`: the upstream sent its last byte. */
  receivedBytes(bytes: number, ended = false): void {
    this.received += bytes;
    if (ended) this.ended = true;
  }

  /** The reader paused the connection (its decoder or the byte budget is behind), or resumed it. */
  readerPaused(paused: boolean): void {
    if (paused) {
      this.pausedSince ??= this.now();
    } else if (this.pausedSince !== null) {
      this.pausedMs += this.now() - this.pausedSince;
      this.pausedSince = null;
    }
  }

  /**
   * Asked when the deadline passes: milliseconds until the body is judged again, or 0 when the
   * attempt ends now (no headers yet: a timeout; a body under the floor's pace: slow).
   */
  graceMs(): number {
    if (this.headersAt === null) return 0;
    if (this.ended || this.pausedSince !== null) return RECHECK_MS;
    const arrivingMs = this.now() - this.headersAt - this.pausedMs;
    // When the pace so far would fall to the floor, were no more bytes to come.
    const floorReachedMs = (this.received / SLOW_BODY_BYTES_PER_S) * 1000;
    return floorReachedMs > arrivingMs ? Math.ceil(floorReachedMs - arrivingMs) : 0;
  }
}
