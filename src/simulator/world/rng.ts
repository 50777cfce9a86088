/**
 * Randomness for the simulated world. Nothing here touches Math.random: a seed must replay the
 * same world, and a render must not depend on which requests came before it.
 *
 * - `hash32`/`hash01` give a value per (seed, tag, entity, field), for choices that must not
 *   depend on the order anything is generated or requested in (quirks, per-driver traits).
 * - `createRng` is a sequential stream (mulberry32) for generating one self-contained piece,
 *   always seeded from a hash of what it generates, so pieces stay independent of each other.
 */

/** One murmur3-style mixing round; `h` and `k` are 32-bit. */
function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3's 32-bit finaliser: spreads every input bit over the whole output. */
export function finalise(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit hash of up to four integers (fixed arity: this sits on render hot paths). */
export function hash32(seed: number, tag: number, a = 0, b = 0): number {
  let h = mix(0x9e3779b9, seed | 0);
  h = mix(h, tag | 0);
  h = mix(h, a | 0);
  h = mix(h, b | 0);
  return finalise(h ^ 16);
}

/** A uniform value in [0, 1) for (seed, tag, a, b). */
export function hash01(seed: number, tag: number, a = 0, b = 0): number {
  return hash32(seed, tag, a, b) / 4294967296;
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick from an empty list');
      return item;
    },
  };
}

/** Hash tags: one per kind of choice, so two choices about the same entity are independent. */
export const TAG = {
  driverName: 1,
  driverPlace: 2,
  driverSkill: 3,
  driverRegularity: 4,
  driverSuffix: 5,
  roster: 6,
  calendar: 7,
  eventClasses: 8,
  eventText: 9,
  field: 10,
  race: 13,
  classOverride: 11,
  pointClassOverride: 12,
  site: 14,
  tour: 15,
  rowQuirks: 16,
  // Render-time quirk choices.
  quirkId: 20,
  quirkFlag: 21,
  quirkPlace: 22,
  quirkStart: 23,
  quirkPosition: 24,
  quirkPointTotal: 25,
  quirkYear: 26,
  quirkStartPosition: 27,
  quirkDuplicateRow: 28,
  quirkDuplicateEntry: 29,
} as const;
