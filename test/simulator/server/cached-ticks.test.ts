import { describe, expect, it } from 'vitest';

import { dotNetTicks, ticksAtNoon } from '../../../src/simulator/ticks.js';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('RequestCachedTicks', () => {
  it('counts 100-ns intervals since 0001-01-01, exactly, past 2^53', () => {
    expect(dotNetTicks(0)).toBe(621_355_968_000_000_000n);
    expect(dotNetTicks(1)).toBe(621_355_968_000_010_000n);
    // 2024-06-15T12:00:00Z is Unix ms 1718452800000.
    expect(ticksAtNoon('2024-06-15')).toBe(638_540_496_000_000_000n);
    expect(ticksAtNoon('2024-06-15') > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it('is noon of the simulated today, written as a bare integer, whatever the wall clock says', async () => {
    const sim = await startTestSimulator();
    sim.world.setToday('2024-06-15');
    const text = await (await fetch(apiUrl(sim, '/v2/schedules/years/'))).text();
    expect(text.endsWith('"RequestCachedTicks":638540496000000000}')).toBe(true);
  });

  it('rejects a day that is not YYYY-MM-DD', () => {
    expect(() => ticksAtNoon('15/06/2024')).toThrow(RangeError);
  });
});
