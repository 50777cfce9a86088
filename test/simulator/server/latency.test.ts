import { describe, expect, it, vi } from 'vitest';

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
    // An API request sent first waits out a latency far longer than the test: the admin route,
    // asked after it, answers while it still waits, whatever the machine's speed.
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['http500'], latencyMs: 600_000 } });
    let apiSettled = false;
    const api = fetch(apiUrl(sim, '/v2/schedules/years/')).then(
      () => (apiSettled = true),
      () => (apiSettled = true),
    );
    await vi.waitFor(() => expect(sim.requests().total).toBe(1), { interval: 5 });
    const res = await fetch(`${sim.url}/__simulator/world`);
    expect(res.status).toBe(200);
    expect(apiSettled).toBe(false);
    expect(sim.requests().total).toBe(1);
    await sim.close();
    await api;
  });
});
