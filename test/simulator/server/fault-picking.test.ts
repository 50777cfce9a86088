import { describe, expect, it } from 'vitest';

import { decideFault } from '../../../src/simulator/faults.js';
import { faultConfigSchema } from '../../../src/simulator/options.js';

const config = (input: object) => faultConfigSchema.parse(input);

describe('decideFault', () => {
  it('is a pure function of seed, request number and config', () => {
    const c = config({ rate: 0.3, jitterMs: 40 });
    const run = () => Array.from({ length: 50 }, (_, i) => decideFault(7, i, c));
    expect(run()).toEqual(run());
    expect(Array.from({ length: 50 }, (_, i) => decideFault(8, i, c))).not.toEqual(run());
  });

  it('picks the same requests whatever the kinds, and every kind in turn', () => {
    const picked = (kinds: string[]) =>
      Array.from({ length: 400 }, (_, i) => decideFault(7, i, config({ rate: 0.5, kinds })).fault);
    const one = picked(['reset']);
    const all = picked(['http429', 'http500', 'slow', 'invalid']);
    expect(all.map((k) => k !== null)).toEqual(one.map((k) => k !== null));
    expect(new Set(all)).toEqual(new Set([null, 'http429', 'http500', 'slow', 'invalid']));
  });

  it('adds fixed latency plus jitter within [0, jitterMs]', () => {
    const c = config({ latencyMs: 10, jitterMs: 5 });
    const latencies = Array.from({ length: 300 }, (_, i) => decideFault(7, i, c).latencyMs);
    expect(Math.min(...latencies)).toBe(10);
    expect(Math.max(...latencies)).toBe(15);
  });

  it('faults everything at rate 1 and nothing at rate 0', () => {
    const faults = (rate: number) => Array.from({ length: 200 }, (_, i) => decideFault(7, i, config({ rate })).fault);
    expect(faults(1).every((k) => k !== null)).toBe(true);
    expect(faults(0).every((k) => k === null)).toBe(true);
  });
});
