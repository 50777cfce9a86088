import { describe, expect, it } from 'vitest';

import type { FaultKind } from '../../../src/simulator/options.js';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('HTTP status faults', () => {
  it('answers 429 with Retry-After in seconds', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['http429'], retryAfterSeconds: 3 } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(sim.requests().faults.http429).toBe(1);
  });

  it('answers 429 with Retry-After as an HTTP date when given one', async () => {
    const retryAfterSeconds = '2030-01-02T03:04:05Z';
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['http429'], retryAfterSeconds } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('Wed, 02 Jan 2030 03:04:05 GMT');
  });

  it.each([
    ['http500', 500],
    ['http502', 502],
    ['http503', 503],
  ] as [FaultKind, number][])('%s answers %i with a body that is not JSON', async (kind, status) => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: [kind] } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'));
    expect(res.status).toBe(status);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    expect(sim.requests().faults[kind]).toBe(1);
  });
});
