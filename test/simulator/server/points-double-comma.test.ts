import { describe, expect, it } from 'vitest';

import type { RunningSimulator } from '../../../src/simulator/server.js';

import { apiUrl, sampleIds, startTestSimulator } from './helpers.js';

async function pointsText(sim: RunningSimulator, extra: Record<string, string> = {}): Promise<string> {
  const { scheduleId, classId } = await sampleIds(sim);
  return (await fetch(apiUrl(sim, '/v2/points/', { ScheduleId: scheduleId, ClassId: classId, ...extra }))).text();
}

describe('the ,, quirk of /v2/points/', () => {
  it('puts ",," between two Points items at rate 1, and nowhere else', async () => {
    const sim = await startTestSimulator({ quirks: { doubleComma: 1 } });
    const text = await pointsText(sim);
    expect(text.split(',,')).toHaveLength(2);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    const repaired = JSON.parse(text.replace(',,', ',')) as { Points: unknown[]; ItemsReturned: number };
    expect(repaired.Points).toHaveLength(repaired.ItemsReturned);
    // Outside the Points array the body is untouched.
    const points = text.slice(text.indexOf('"Points":['));
    expect(points).toContain(',,');
    expect(sim.requests().faults.doubleComma).toBe(0);
  });

  it('never appears at rate 0', async () => {
    const sim = await startTestSimulator({ quirks: { doubleComma: 0 } });
    expect(await pointsText(sim)).not.toContain(',,');
  });

  it('depends on the request, not on how often it was asked', async () => {
    const sim = await startTestSimulator({ quirks: { doubleComma: 0.5 } });
    const variants = Array.from({ length: 12 }, (_, i) => ({ DriverCount: String(i) }));
    const first: boolean[] = [];
    for (const v of variants) first.push((await pointsText(sim, v)).includes(',,'));
    const again: boolean[] = [];
    for (const v of variants.reverse()) again.unshift((await pointsText(sim, v)).includes(',,'));
    expect(again).toEqual(first);
    expect(new Set(first)).toEqual(new Set([true, false]));
  });
});
