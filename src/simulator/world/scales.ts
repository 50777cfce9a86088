import type { Scale } from './types.js';

/**
 * How big each scale's world is. Measured with seed 1 and the default today (2026-07-15);
 * "rows" are result rows of events dated on or before today (what `summary().resultRows`
 * reports); build is `createWorld` on one core of a 2-core VM, in a warm process:
 *
 * | scale  | years | events | with results | classes | drivers | result rows | build  | truth() |
 * |--------|-------|--------|--------------|---------|---------|-------------|--------|---------|
 * | tiny   |     2 |     20 |           17 |       3 |      44 |         806 |   6 ms |   <5 ms |
 * | small  |     3 |     72 |           64 |       5 |     138 |       7,624 |  15 ms |   30 ms |
 * | medium |    10 |    560 |          536 |       9 |     583 |     167,020 | 240 ms |  0.35 s |
 * | large  |    30 |  2,790 |        2,749 |      12 |   1,670 |   1,229,720 | 0.9 s  |  2.3 s  |
 *
 * Every car runs its heat and the feature, so rows ≈ events with results × classes per event
 * × 2 × field size. Rows live in typed arrays (9 bytes a row): the large model takes about
 * 14 MB of memory, while its truth(), some 3.5 million row objects, takes about 400 MB.
 */
export interface ScaleParams {
  /** Seasons, ending with today's year (the current season is part run). */
  years: number;
  /** Weekly points series per season: Friday, Saturday, Thursday, Sunday nights in that order. */
  weeklySeries: number;
  /** Race nights per weekly series, spread over the 28-week season (April to October). */
  nightsPerSeries: number;
  /** Consecutive nights of Summer Speedweek, ending on a Saturday in late June. */
  speedweekNights: number;
  /** Non-points specials per season. */
  specials: number;
  /** Classes in the world; each event runs a subset. */
  classes: number;
  classesPerEvent: readonly [min: number, max: number];
  /** Cars per class per event. */
  fieldSize: readonly [min: number, max: number];
}

export const SCALES: Record<Scale, ScaleParams> = {
  tiny: {
    years: 2,
    weeklySeries: 1,
    nightsPerSeries: 7,
    speedweekNights: 3,
    specials: 1,
    classes: 3,
    classesPerEvent: [2, 3],
    fieldSize: [8, 11],
  },
  small: {
    years: 3,
    weeklySeries: 1,
    nightsPerSeries: 18,
    speedweekNights: 5,
    specials: 2,
    classes: 5,
    classesPerEvent: [3, 4],
    fieldSize: [15, 20],
  },
  medium: {
    years: 10,
    weeklySeries: 2,
    nightsPerSeries: 24,
    speedweekNights: 6,
    specials: 4,
    classes: 9,
    classesPerEvent: [6, 7],
    fieldSize: [20, 28],
  },
  large: {
    years: 30,
    weeklySeries: 3,
    nightsPerSeries: 28,
    speedweekNights: 7,
    specials: 5,
    classes: 12,
    classesPerEvent: [7, 9],
    fieldSize: [24, 32],
  },
};

/** Active drivers per class and season: the field plus room for who sits a night out. */
export function poolSize(params: ScaleParams): number {
  return Math.ceil(params.fieldSize[1] * 1.3);
}
