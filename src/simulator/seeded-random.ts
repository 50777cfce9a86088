/**
 * Counter-based randomness: a uniform number in [0, 1) from (seed, label). The same inputs give
 * the same number on every run and every machine, and no state is carried between calls, so a
 * decision for request #n does not depend on how many other decisions were drawn before it.
 */

import { finalise } from './world/rng.js';

/** FNV-1a over the label's UTF-16 code units, started from the seed. */
function fnv1a(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function unitFor(seed: number, label: string): number {
  // FNV alone leaves the low bits of similar labels correlated; the finaliser spreads them.
  return finalise(fnv1a(seed | 0, label)) / 2 ** 32;
}

/** An integer in [0, count) from (seed, label). */
export function indexFor(seed: number, label: string, count: number): number {
  return Math.min(count - 1, Math.floor(unitFor(seed, label) * count));
}
