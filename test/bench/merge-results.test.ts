import { describe, expect, it } from 'vitest';

import { assertSameMachine, layInto } from '../../bench/lib/merge-results.js';
import { readLatestResults } from '../../bench/lib/performance-doc.js';
import { runHeading, type BenchResults } from '../../bench/lib/report.js';

/** The committed results, with one earlier rerun of another section of the test's own (not whatever latest.json holds). */
const base: BenchResults = { ...readLatestResults(), reruns: [{ sections: ['e2e'], startedAt: '2029-12-31T00:00:00.000Z', loadAverage: { start: 1, end: 1 } }] };
const restarted = { scale: 'medium', stop: 'restart', at: 0.5, target: 1.1, minRequests: 100, requests: 120, ratio: 1.2, continued: true, resumedMs: 9_000, resumeBoundMs: 30_000 } as const;
const alone: BenchResults = {
  mode: 'full',
  startedAt: '2030-01-01T00:00:00.000Z',
  machine: { ...base.machine, loadAverage: { start: 1, end: 2 } },
  continued: [restarted],
  targets: {},
};

describe('a full run of one section laid into the last full run', () => {
  it('replaces that section, keeps the others, judges again and names the later run in the heading', () => {
    const merged = layInto(base, alone);
    expect(merged.continued).toEqual([restarted]);
    expect(merged.loader).toEqual(base.loader);
    expect(merged.startedAt).toBe(base.startedAt);
    expect(merged.targets['continued_medium_restart_0.5']).toEqual({ target: '<= 1.1 x minimum, continued', met: false });
    expect(merged.targets.insertToCopy).toEqual(base.targets.insertToCopy);
    expect(runHeading(merged)).toMatch(/; e2e run again alone 2029-12-31T00:00:00.000Z, load average 1.0 -> 1.0; continued run again alone 2030-01-01T00:00:00.000Z, load average 1.0 -> 2.0$/);
  });

  it('forgets an earlier rerun of the sections it replaces, and keeps the others', () => {
    const again = layInto(layInto(base, alone), { ...alone, startedAt: '2030-01-02T00:00:00.000Z' });
    expect(again.reruns?.map((r) => r.startedAt)).toEqual(['2029-12-31T00:00:00.000Z', '2030-01-02T00:00:00.000Z']);
  });

  it('is refused on another machine', () => {
    expect(() => assertSameMachine(base.machine, { ...base.machine, node: 'v0' })).toThrow(/another node/);
    expect(() => assertSameMachine(base.machine, base.machine)).not.toThrow();
  });
});
