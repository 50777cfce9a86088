import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

async function elapsedMs(url: string): Promise<number> {
  const started = performance.now();
  await (await fetch(url)).arrayBuffer();
  return performance.now() - started;
}

describe('latency', () => {
  it('delays every API request by the fixed latency', async () => {
    const sim = await startTestSimulator({ faults: { latencyMs: 80 } });
    for (let i = 0; i < 3; i++) expect(await elapsedMs(apiUrl(sim, '/v2/schedules/years/'))).toBeGreaterThanOrEqual(75);
  });

  it('applies to faulted requests too', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['http500'], latencyMs: 80 } });
    expect(await elapsedMs(apiUrl(sim, '/v2/schedules/years/'))).toBeGreaterThanOrEqual(75);
  });

  it('never delays or faults the admin routes', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['http500'], latencyMs: 500 } });
    const started = performance.now();
    const res = await fetch(`${sim.url}/__simulator/world`);
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(400);
    expect(sim.requests().total).toBe(0);
  });
});
