import { describe, expect, it } from 'vitest';

import { startTestSimulator } from './helpers.js';

describe('the request log', () => {
  it('counts requests by path and sorted query, never recording the key', async () => {
    const sim = await startTestSimulator();
    const k = sim.key;
    await fetch(`${sim.url}/v2/schedules/events/?key=${k}&ScheduleId=100&EventYear=2024`);
    await fetch(`${sim.url}/v2/schedules/events/?EventYear=2024&key=${k}&ScheduleId=100`);
    await fetch(`${sim.url}/v2/schedules/years/?key=wrong-key`);
    await fetch(`${sim.url}/v2/schedules/driverPasses/?key=${k}&StartDate=1/1/2024&EventId=7`);
    await fetch(`${sim.url}/v2/nothing-here/?key=${k}`);

    const log = sim.requests();
    expect(log.total).toBe(5);
    expect(log.byPath).toEqual({
      '/v2/schedules/events/?EventYear=2024&ScheduleId=100': 2,
      '/v2/schedules/years/': 1,
      '/v2/schedules/driverPasses/?EventId=7&StartDate=1%2F1%2F2024': 1,
      '/v2/nothing-here/': 1,
    });
    expect(Object.values(log.faults).every((n) => n === 0)).toBe(true);
    expect(JSON.stringify(log)).not.toContain(k);
    expect(JSON.stringify(log)).not.toContain('wrong-key');
  });

  it('is served by the admin API and can be reset', async () => {
    const sim = await startTestSimulator();
    await fetch(`${sim.url}/v2/schedules/?key=${sim.key}`);
    const served = (await (await fetch(`${sim.url}/__simulator/requests`)).json()) as { total: number };
    expect(served.total).toBe(1);
    expect((await fetch(`${sim.url}/__simulator/requests/reset`, { method: 'POST' })).status).toBe(200);
    expect(sim.requests().total).toBe(0);
    await fetch(`${sim.url}/v2/schedules/?key=${sim.key}`);
    sim.resetRequests();
    expect(sim.requests()).toMatchObject({ total: 0, byPath: {} });
  });
});
