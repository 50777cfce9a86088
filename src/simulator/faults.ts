import type { FaultConfig, FaultKind } from './options.js';
import { indexFor, unitFor } from './seeded-random.js';

/**
 * Which API request gets which fault. Pure: the decision for the n-th request since the fault
 * config was last set depends only on (seed, n, config). Each decision draws from its own
 * labelled stream, so raising the rate only adds faulted requests, and changing the kinds or the
 * jitter never moves which requests are faulted.
 *
 * Requests are numbered in arrival order, so a client that sends them concurrently may see a
 * different request take the n-th fault from run to run; sequential clients see the same faults.
 */

export interface FaultDecision {
  fault: FaultKind | null;
  /** Delay before answering: fixed latency plus uniform jitter. */
  latencyMs: number;
  /** A uniform number in [0, 1) for choices inside a fault (where to cut, where to put `,,`). */
  variant: number;
}

export function decideFault(seed: number, requestIndex: number, config: FaultConfig): FaultDecision {
  const faulted = unitFor(seed, `fault:${requestIndex}`) < config.rate;
  const kind = config.kinds[indexFor(seed, `kind:${requestIndex}`, config.kinds.length)];
  const jitter = Math.floor(unitFor(seed, `jitter:${requestIndex}`) * (config.jitterMs + 1));
  return {
    fault: faulted && kind !== undefined ? kind : null,
    latencyMs: config.latencyMs + jitter,
    variant: unitFor(seed, `variant:${requestIndex}`),
  };
}

/** The Retry-After header value: delay-seconds, or an HTTP-date already in IMF-fixdate form. */
export function retryAfterHeader(config: FaultConfig): string {
  return String(config.retryAfterSeconds);
}
