import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('body faults', () => {
  it('invalid: HTTP 200 with RequestValid 0 and an empty array', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['invalid'] } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ RequestValid: 0, ItemsReturned: 0, Schedules: [], RequestCached: 0 });
    expect(sim.requests().faults.invalid).toBe(1);
  });

  it('doubleComma: a ",," between two array items, which a client repairs by collapsing it', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['doubleComma'] } });
    const text = await (await fetch(apiUrl(sim, '/v2/schedules/'))).text();
    expect(text).toContain(',,');
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    const repaired = JSON.parse(text.replaceAll(',,', ',')) as { RequestValid: number; Schedules: unknown[] };
    expect(repaired.RequestValid).toBe(1);
    expect(repaired.Schedules.length).toBeGreaterThanOrEqual(2);
    expect(sim.requests().faults.doubleComma).toBe(1);
  });

  it('doubleComma: not applied, nor counted, when no array has two items', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['doubleComma'] } });
    const text = await (await fetch(apiUrl(sim, '/v2/schedules/', { ScheduleYear: 1900 }))).text();
    expect(JSON.parse(text)).toMatchObject({ RequestValid: 1, ItemsReturned: 0 });
    expect(sim.requests().faults.doubleComma).toBe(0);
  });
});
