/**
 * Counter-based randomness: a uniform number in [0, 1) from (seed, label). The same inputs give
 * the same number on every run and every machine, and no state is carried between calls, so a
 * decision for request #n does not depend on how many other decisions were drawn before it.
 */

/** FNV-1a over the label's UTF-16 code units, started from the seed. */
function fnv1a(seed: number, label: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** murmur3's finalizer: FNV alone leaves the low bits of similar labels correlated. */
function mix(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function unitFor(seed: number, label: string): number {
  return mix(fnv1a(seed | 0, label)) / 2 ** 32;
}

/** An integer in [0, count) from (seed, label). */
export function indexFor(seed: number, label: string, count: number): number {
  return Math.min(count - 1, Math.floor(unitFor(seed, label) * count));
}
