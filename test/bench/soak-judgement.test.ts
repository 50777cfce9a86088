import { describe, expect, it } from 'vitest';

import { GROWTH_LIMIT, GROWTH_MARGIN, grew, growthByLife, MIN_JUDGED_MS, resourcesFlat, WARMUP_MS } from '../../bench/lib/soak-report.js';
import { countRuns, type RunRow } from '../../bench/lib/soak-runs.js';
import { growthOf, type Sample } from '../../bench/lib/soak-samples.js';

const run = (run_id: number, job: string, status: string): RunRow => ({ run_id, job, status, trigger: 'schedule', started_at: '', error: null });

describe("the soak's run accounting", () => {
  it('counts a failed run followed by a success as retried to success, and skipped runs as not started', () => {
    const c = countRuns([run(1, 'full', 'failed'), run(2, 'full', 'skipped'), run(3, 'full', 'succeeded'), run(4, 'live', 'abandoned'), run(5, 'live', 'succeeded')]);
    expect(c.full).toMatchObject({ started: 2, succeeded: 1, failed: 1, skipped: 1, retriedToSuccess: 1, notRecovered: 0 });
    expect(c.all).toMatchObject({ started: 4, succeeded: 2, abandoned: 1, retriedToSuccess: 2 });
  });

  it('counts a failure never followed by a success as not recovered', () => {
    const c = countRuns([run(1, 'season', 'succeeded'), run(2, 'season', 'failed'), run(3, 'season', 'failed')]);
    expect(c.season).toMatchObject({ failed: 2, retriedToSuccess: 0, notRecovered: 2 });
  });
});

/** One sample a minute for `minutes` minutes of worker 1, RSS given by `rss(minute)`. */
const samples = (minutes: number, rss: (m: number) => number): Sample[] =>
  Array.from({ length: minutes + 1 }, (_, m) => ({ atMs: m * 60_000, life: 1, pid: 1, rssMb: rss(m), fds: 30, dbConnections: 5, serverSessions: 6 }));

describe("the soak's growth judgement", () => {
  it('sees a steady climb after warm-up as growth', () => {
    const g = growthOf(samples(10, (m) => 100 + 10 * m), 1, 'rssMb', 120_000, 180_000);
    expect(g.growth).toBeGreaterThan(0.1);
  });

  it('does not count the warm-up, and judges a flat ceiling as flat', () => {
    const g = growthOf(samples(10, (m) => (m < 2 ? 50 + 40 * m : m % 2 ? 150 : 120)), 1, 'rssMb', 120_000, 180_000);
    expect(g).toEqual({ early: 150, late: 150, growth: 0 });
  });

  it('leaves a life too short after warm-up unjudged', () => {
    expect(growthOf(samples(4, (m) => 100 * m), 1, 'rssMb', 120_000, 180_000).growth).toBeNull();
  });
});

describe('growth on small counts', () => {
  /** Worker 1's samples, its db connections at `conns(minute)`, RSS `rss(minute)`. */
  const counted = (conns: (m: number) => number, rss: (m: number) => number): Sample[] =>
    samples(10, rss).map((s, m) => ({ ...s, dbConnections: conns(m) }));

  it('counts a step within the absolute margin as no growth, however large its percentage', () => {
    const seven = 7;
    const g = growthOf(counted((m) => (m < 6 ? seven : seven + GROWTH_MARGIN.dbConnections - 2), () => 200), 1, 'dbConnections', WARMUP_MS, MIN_JUDGED_MS);
    expect(g.growth).toBeGreaterThan(GROWTH_LIMIT);
    expect(grew(g, 'dbConnections')).toBe(false);
  });

  it('still counts growth past the margin, and the soak target judges by it', () => {
    const g = growthOf(counted((m) => 7 + 2 * m, () => 200), 1, 'dbConnections', WARMUP_MS, MIN_JUDGED_MS);
    expect(g.late - g.early).toBeGreaterThan(GROWTH_MARGIN.dbConnections);
    expect(grew(g, 'dbConnections')).toBe(true);
    const flat = growthByLife(counted((m) => (m < 6 ? 7 : 9), (m) => 210 - m));
    const leaking = growthByLife(counted((m) => 7 + 2 * m, (m) => 210 - m));
    expect(resourcesFlat(flat)).toBe(true);
    expect(resourcesFlat(leaking)).toBe(false);
  });
});
