import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { gracefulStop } from '../../src/worker/graceful-stop.js';

describe('a graceful stop', () => {
  beforeEach(() => void vi.useFakeTimers({ now: new Date('2026-07-15T00:00:00Z') }));
  afterEach(() => void vi.useRealTimers());

  it('drains at once when its trigger fires and aborts only after the timeout', async () => {
    const trigger = new AbortController();
    const stop = gracefulStop(30_000, trigger.signal);
    expect([stop.drain.aborted, stop.abort.aborted]).toEqual([false, false]);
    trigger.abort(new Error('received SIGTERM'));
    expect([stop.drain.aborted, stop.abort.aborted]).toEqual([true, false]);
    expect((stop.drain.reason as Error).message).toBe('received SIGTERM');
    await vi.advanceTimersByTimeAsync(29_999);
    expect(stop.abort.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(stop.abort.aborted).toBe(true);
  });

  it('never aborts once disposed, and begin() twice arms one timer', async () => {
    const stop = gracefulStop(1_000);
    stop.begin();
    stop.begin();
    stop.dispose();
    await vi.advanceTimersByTimeAsync(5_000);
    expect([stop.drain.aborted, stop.abort.aborted]).toEqual([true, false]);
  });

  it('aborts together with the drain when the timeout is 0', () => {
    const stop = gracefulStop(0);
    stop.begin();
    expect(stop.abort.aborted).toBe(true);
  });
});
