import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { createRateLimiter } from '../../src/api/rate-limit.js';

describe('createRateLimiter', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('spaces acquisitions evenly at 1000 / maxRps ms, the first at once', async () => {
    const limiter = createRateLimiter(4);
    const times: number[] = [];
    const all = Promise.all([0, 1, 2, 3].map(() => limiter.acquire().then(() => times.push(Date.now()))));
    await vi.advanceTimersByTimeAsync(1000);
    await all;
    expect(times).toEqual([0, 250, 500, 750]);
  });

  it('does not bank tokens while idle: burst is 1', async () => {
    const limiter = createRateLimiter(2);
    await limiter.acquire();
    await vi.advanceTimersByTimeAsync(5000);
    const times: number[] = [];
    const all = Promise.all([0, 1].map(() => limiter.acquire().then(() => times.push(Date.now()))));
    await vi.advanceTimersByTimeAsync(1000);
    await all;
    expect(times).toEqual([5000, 5500]);
  });

  it('with maxRps 0 never waits', async () => {
    const limiter = createRateLimiter(0);
    for (let i = 0; i < 100; i++) await limiter.acquire();
    expect(Date.now()).toBe(0);
  });

  it('rejects an aborted wait with the reason and hands its slot to the next caller', async () => {
    const limiter = createRateLimiter(2);
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    const next = limiter.acquire().then(() => Date.now());
    await vi.advanceTimersByTimeAsync(1000);
    expect(await next).toBe(500);
  });

  it('refuses a negative or non-finite rate', () => {
    expect(() => createRateLimiter(-1)).toThrow(RangeError);
    expect(() => createRateLimiter(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
