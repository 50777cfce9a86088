import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface ArrivalBunching {
  /** The arrivals a one-second window may count above `ratePerSecond` + 1, for the longest hold so far. */
  allowance(ratePerSecond: number): number;
  longestHoldMs(): number;
  /** Stops measuring; what was measured is kept. */
  stop(): void;
}

/**
 * How many more requests a simulator in this process may count in its busiest second than a
 * sender keeping its rate sent in theirs, measured while it serves. The simulator stamps a request
 * when its handler runs: while this process's event loop is held up (by the test's own work, or by
 * a busy machine not scheduling it) requests wait in their sockets and are stamped together once
 * it runs again. A hold of d ms moves up to rate × d / 1000 arrivals into the next second, so the
 * allowance is that for the longest hold seen, and never less than one (a hold too short to
 * measure still moves one). A sender in another process is held up too on a busy machine, which
 * this does not see: where the sender is in this process, judge its pace at its sends.
 */
export function measureArrivalBunching(): ArrivalBunching {
  const delays = monitorEventLoopDelay({ resolution: 10 });
  delays.enable();
  const longestHoldMs = () => delays.max / 1e6;
  return {
    allowance: (ratePerSecond) => Math.max(1, Math.ceil((ratePerSecond * longestHoldMs()) / 1000)),
    longestHoldMs,
    stop: () => delays.disable(),
  };
}
