import { getEventListeners } from 'node:events';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { attemptSignal } from '../../src/api/attempt-signal.js';

describe('attemptSignal', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('aborts at its deadline with a TimeoutError, and says it timed out', () => {
    const attempt = attemptSignal(undefined, 1000);
    vi.advanceTimersByTime(999);
    expect(attempt.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect({ timedOut: attempt.timedOut, reason: (attempt.signal.reason as DOMException).name }).toEqual({ timedOut: true, reason: 'TimeoutError' });
  });

  it("aborts with the caller's reason, which is no timeout; an attempt ended before is left alone", () => {
    const caller = new AbortController();
    const ended = attemptSignal(caller.signal, 1000);
    ended.end();
    const live = attemptSignal(caller.signal, 1000);
    caller.abort(new Error('drained'));
    expect({ live: live.signal.reason, timedOut: live.timedOut, ended: ended.signal.aborted }).toEqual({ live: new Error('drained'), timedOut: false, ended: false });
  });

  it('is aborted from the start under a caller already aborted', () => {
    const caller = new AbortController();
    caller.abort(new Error('stopped'));
    expect(attemptSignal(caller.signal, 1000).signal.reason).toEqual(new Error('stopped'));
  });

  it("holds one listener on the caller's signal however many attempts are in flight, and none once they end", () => {
    const caller = new AbortController();
    const attempts = Array.from({ length: 50 }, () => attemptSignal(caller.signal, 1000));
    const during = getEventListeners(caller.signal, 'abort').length;
    for (const a of attempts) a.end();
    expect({ during, after: getEventListeners(caller.signal, 'abort').length }).toEqual({ during: 1, after: 0 });
  });

  it('an ended attempt never times out', () => {
    const attempt = attemptSignal(undefined, 1000);
    attempt.end();
    vi.advanceTimersByTime(5000);
    expect({ aborted: attempt.signal.aborted, timers: vi.getTimerCount() }).toEqual({ aborted: false, timers: 0 });
  });
});
