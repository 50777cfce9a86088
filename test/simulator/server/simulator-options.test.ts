import { describe, expect, it } from 'vitest';

import { parseSimulatorOptions, SIMULATOR_KEY } from '../../../src/simulator/options.js';
import { DEFAULT_QUIRKS } from '../../../src/simulator/world/types.js';

import { testWorld } from './helpers.js';

describe('simulator options', () => {
  it('default to loopback, an ephemeral port, seed 7, the fixed key and no faults', () => {
    const o = parseSimulatorOptions();
    expect(o).toMatchObject({ host: '127.0.0.1', port: 0, seed: 7, key: SIMULATOR_KEY });
    expect(o.invalidRequest).toBe('request-valid-0');
    expect(o.quirks).toEqual(DEFAULT_QUIRKS);
    expect(o.faults).toMatchObject({ rate: 0, latencyMs: 0, jitterMs: 0, slowMs: 60_000, retryAfterSeconds: 1 });
    expect(o.faults.kinds).toHaveLength(9);
  });

  it('take the seed of a given world unless one is named', () => {
    expect(parseSimulatorOptions({ world: testWorld(42) }).seed).toBe(42);
    expect(parseSimulatorOptions({ world: testWorld(42), seed: 5 }).seed).toBe(5);
  });

  it('refuse a built world together with scale or today, and bad values', () => {
    expect(() => parseSimulatorOptions({ world: testWorld(), scale: 'tiny' })).toThrow(/either a built world/);
    expect(() => parseSimulatorOptions({ today: '2024-13-01' })).toThrow();
    expect(() => parseSimulatorOptions({ faults: { retryAfterSeconds: 'soon' } })).toThrow();
    expect(() => parseSimulatorOptions({ port: 70_000 })).toThrow();
    expect(() => parseSimulatorOptions({ invalidRequest: 'teapot' } as never)).toThrow();
  });
});
