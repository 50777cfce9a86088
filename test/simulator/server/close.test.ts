import { describe, expect, it, vi } from 'vitest';

import { startSimulator } from '../../../src/simulator/server.js';

import { apiUrl, testWorld } from './helpers.js';

/**
 * How long the simulator holds a response in these tests; a close that waited for it would take
 * at least that long, so the tests' bounds are this, not a guess at how fast the machine is.
 */
const HELD_MS = 60_000;

describe('close()', () => {
  it('ends a stalled slow response and keep-alive sockets at once, and is safe to call twice', async () => {
    const sim = await startSimulator({ world: testWorld(), faults: { rate: 1, kinds: ['slow'], slowMs: HELD_MS } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'));
    const body = res.text().catch((err: unknown) => err);
    const started = performance.now();
    await Promise.all([sim.close(), sim.close()]);
    await sim.close();
    expect(performance.now() - started).toBeLessThan(HELD_MS);
    expect(await body).toBeInstanceOf(Error);
    await expect(fetch(apiUrl(sim, '/v2/schedules/'))).rejects.toThrow();
  });

  it('ends a request still waiting out its latency', async () => {
    const sim = await startSimulator({ world: testWorld(), faults: { latencyMs: HELD_MS } });
    const pending = fetch(apiUrl(sim, '/v2/schedules/')).catch((err: unknown) => err);
    await vi.waitFor(() => expect(sim.requests().total).toBe(1), { interval: 5 });
    const started = performance.now();
    await sim.close();
    expect(performance.now() - started).toBeLessThan(HELD_MS);
    expect(await pending).toBeInstanceOf(Error);
  });
});
