import { describe, expect, it } from 'vitest';

import type { RunningSimulator } from '../../../src/simulator/server.js';

import { apiUrl, startTestSimulator, testWorld } from './helpers.js';

/** Statuses of 200 sequential requests, which is what makes arrival order reproducible. */
async function statuses(sim: RunningSimulator): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < 200; i++) {
    const res = await fetch(apiUrl(sim, '/v2/schedules/years/'));
    await res.arrayBuffer();
    seen.push(res.status);
  }
  return seen;
}

describe('the fault rate', () => {
  it('faults about a fifth of 200 requests at rate 0.2, the same ones for the same seed', async () => {
    const faults = { rate: 0.2, kinds: ['http500' as const] };
    const first = await startTestSimulator({ world: testWorld(3), faults });
    const second = await startTestSimulator({ world: testWorld(3), faults });
    const a = await statuses(first);
    const faulted = a.filter((s) => s === 500).length;
    // Binomial(200, 0.2): mean 40, sd 5.7; this band is wider than 3 sd either side.
    expect(faulted).toBeGreaterThanOrEqual(22);
    expect(faulted).toBeLessThanOrEqual(58);
    expect(first.requests().faults.http500).toBe(faulted);
    expect(await statuses(second)).toEqual(a);
  });

  it('restarts the sequence when the fault config is replaced', async () => {
    const sim = await startTestSimulator({ world: testWorld(3), faults: { rate: 0.5, kinds: ['http503'] } });
    const before = await statuses(sim);
    sim.setFaults({ rate: 0.5, kinds: ['http503'] });
    expect(await statuses(sim)).toEqual(before);
  });

  it('never faults at rate 0', async () => {
    const sim = await startTestSimulator({ faults: { rate: 0 } });
    expect(new Set(await statuses(sim))).toEqual(new Set([200]));
  });
});
