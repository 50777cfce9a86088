import { describe, expect, it } from 'vitest';

import { backoffDelayMs } from '../../src/api/backoff.js';

const opts = { baseMs: 500, capMs: 30_000 };
const almostOne = () => 0.999_999;

describe('backoffDelayMs', () => {
  it('doubles the ceiling with each attempt, starting at baseMs', () => {
    const ceilings = [1, 2, 3, 4, 5].map((attempt) => backoffDelayMs(attempt, opts, almostOne));
    expect(ceilings).toEqual([499, 999, 1999, 3999, 7999]);
  });

  it('never lets the ceiling pass capMs, even for absurd attempt numbers', () => {
    expect(backoffDelayMs(7, opts, almostOne)).toBe(29_999);
    expect(backoffDelayMs(10_000, opts, almostOne)).toBe(29_999);
    expect(Number.isFinite(backoffDelayMs(Number.MAX_SAFE_INTEGER, opts, () => 0.5))).toBe(true);
  });

  it('applies full jitter: the delay is random() times the ceiling', () => {
    expect(backoffDelayMs(3, opts, () => 0)).toBe(0);
    expect(backoffDelayMs(3, opts, () => 0.5)).toBe(1000);
    expect(backoffDelayMs(3, opts, () => 0.25)).toBe(500);
  });

  it('treats attempt numbers below 1 as the first attempt', () => {
    expect(backoffDelayMs(0, opts, () => 0.5)).toBe(250);
    expect(backoffDelayMs(-3, opts, () => 0.5)).toBe(250);
  });
});
