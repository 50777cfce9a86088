import { describe, expect, it } from 'vitest';

import { ticksAtNoon } from '../../../src/simulator/ticks.js';

import { apiUrl, postJson, startTestSimulator } from './helpers.js';

describe('POST /__simulator/clock', () => {
  it('advancing the clock changes what the API answers', async () => {
    const sim = await startTestSimulator();
    const firstYear = sim.world.summary().years[0];
    sim.world.setToday(`${firstYear}-01-01`);
    const before = await (await fetch(apiUrl(sim, '/v2/schedules/results/feed/'))).text();
    const scoredBefore = sim.world.summary().eventsWithResults;

    const res = await postJson(sim, 'clock', { advanceDays: 200 });
    const expectedDay = new Date(Date.UTC(Number(firstYear), 0, 1 + 200)).toISOString().slice(0, 10);
    expect(res.status).toBe(200);
    expect(res.body.today).toBe(expectedDay);
    expect(res.body.eventsWithResults).toBeGreaterThan(scoredBefore);
    const after = await (await fetch(apiUrl(sim, '/v2/schedules/results/feed/'))).text();
    const withoutTicks = (text: string) => text.replace(/"RequestCachedTicks":\d+/, '');
    expect(withoutTicks(after)).not.toBe(withoutTicks(before));
    expect(after).toContain(`"RequestCachedTicks":${ticksAtNoon(expectedDay)}}`);
  });

  it('sets an absolute day', async () => {
    const sim = await startTestSimulator();
    const res = await postJson(sim, 'clock', { today: '2024-05-20' });
    expect(res.body.today).toBe('2024-05-20');
    expect(sim.world.today()).toBe('2024-05-20');
  });

  it('refuses a body that is neither form', async () => {
    const sim = await startTestSimulator();
    const bad = [
      {},
      { advanceDays: -1 },
      { advanceDays: 1.5 },
      { today: '2024-02-30' },
      { today: '2024-05-20', advanceDays: 1 },
    ];
    for (const body of bad) {
      const res = await postJson(sim, 'clock', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error, JSON.stringify(body)).toBe('string');
    }
  });
});
