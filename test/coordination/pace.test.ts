import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { abortableSleep, type RateLimiter } from '../../src/api/rate-limit.js';
import { FIRST_RANK, ProcessPace, TurnLimiter, type PaceShares } from '../../src/coordination/pace.js';

// Fake timers fake performance.now() too, which is the clock the limiters read: every time below
// is in fake milliseconds from 0, and no test waits on the wall clock.
beforeEach(() => void vi.useFakeTimers({ now: 0 }));
afterEach(() => void vi.useRealTimers());

/**
 * Requests asking for their turn at once, one per limiter given (a limiter named twice, two of
 * its requests): when each was let go, in the order given, once `ms` have passed.
 */
async function sendTimes(limiters: readonly RateLimiter[], ms: number): Promise<number[]> {
  const all = Promise.all(limiters.map((l) => l.acquire().then(() => performance.now())));
  await vi.advanceTimersByTimeAsync(ms);
  return all;
}

const requestsOf = (limiter: RateLimiter, n: number): RateLimiter[] => Array.from({ length: n }, () => limiter);

/** Shares a test changes while requests wait, as a worker's beat does. */
function shares(source = 1, global = 1): PaceShares & { source: number; global: number } {
  const s = { source, global, sourceShare: () => s.source, globalShare: () => s.global };
  return s;
}

describe('TurnLimiter', () => {
  it('lets requests go one interval apart, the first at once', async () => {
    expect(await sendTimes(requestsOf(new TurnLimiter(() => 4), 4), 1000)).toEqual([0, 250, 500, 750]);
  });

  it('never waits at rate 0 (unlimited)', async () => {
    expect(await sendTimes(requestsOf(new TurnLimiter(() => 0), 50), 0)).toEqual(Array.from({ length: 50 }, () => 0));
  });

  it('sends no burst after a stall: a wait that returned 5 s late (SIGSTOP) lets one request go, the next one interval after it', async () => {
    // The process stopped during the second request's wait: its sleep returns 5 s late.
    let stall = 5_000;
    const sleep = (ms: number, signal?: AbortSignal) => {
      const late = stall;
      stall = 0;
      return abortableSleep(ms + late, signal);
    };
    // A limiter reserving slots ahead (250, 500, 750) would let the three overdue ones go together at 5,250.
    expect(await sendTimes(requestsOf(new TurnLimiter(() => 4, sleep), 4), 10_000)).toEqual([0, 5_250, 5_500, 5_750]);
  });

  it("keeps its turns on their grid when each timer fires a little late, so the rate is the cap's, not the cap's less the timers' lateness", async () => {
    // Every wait returns 1 ms late, as a timer does on a busy loop.
    const sleep = (ms: number, signal?: AbortSignal) => abortableSleep(ms + 1, signal);
    const sent = await sendTimes(requestsOf(new TurnLimiter(() => 100, sleep), 100), 2_000);
    // One on its grid would go at 990 ms; spaced from each send, 99 x 11 ms = 1,089.
    expect(sent.at(-1)).toBe(991);
    expect(Math.min(...sent.slice(1).map((t, i) => t - sent[i]!))).toBe(10);
  });

  it('never sends before its turn when a timer fires early (its start was the event-loop turn\'s cached clock)', async () => {
    // Every wait of more than 3 ms returns 3 ms early.
    const sleep = (ms: number, signal?: AbortSignal) => abortableSleep(ms > 3 ? ms - 3 : ms, signal);
    const sent = await sendTimes(requestsOf(new TurnLimiter(() => 100, sleep), 50), 1_000);
    expect(sent).toEqual(Array.from({ length: 50 }, (_, i) => i * 10));
  });

  it('puts no more than cap + 1 sends into any second, however late within its tolerance each wait returns, with stalls between', async () => {
    // A fixed pseudo-random sequence of lateness: under the tolerance, and a stall about every 3 s.
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (const cap of [3, 5, 7, 100]) {
      const tolerance = Math.min(1000 / cap / 4, 5);
      const sleep = (ms: number, signal?: AbortSignal) => abortableSleep(ms + (random() < 0.3 / cap ? 300 * random() : tolerance * random()), signal);
      const sent = await sendTimes(requestsOf(new TurnLimiter(() => cap, sleep), cap * 20), 60_000);
      // The simulator's count: arrivals within (t - 1000, t] for every arrival t.
      const busiest = Math.max(...sent.map((t) => sent.filter((u) => u > t - 1000 && u <= t).length));
      expect(busiest, `cap ${cap}`).toBeLessThanOrEqual(cap + 1);
      expect(busiest, `cap ${cap}`).toBeGreaterThanOrEqual(cap);
    }
  });

  it('banks no turns while idle: after 5 s without requests, the next goes at once and the one after waits an interval', async () => {
    const limiter = new TurnLimiter(() => 4);
    await limiter.acquire();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await sendTimes(requestsOf(limiter, 3), 1_000)).toEqual([5_000, 5_250, 5_500]);
  });

  it('hands the turn on when a waiting request is aborted: the one behind it goes when the aborted one would have', async () => {
    const limiter = new TurnLimiter(() => 4);
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire().then(() => performance.now());
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(new Error('the run drains'));
    await expect(aborted).rejects.toThrow('the run drains');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await next).toBe(250);
  });

  it('gives each turn to the waiter of lowest rank, read when the turn comes, the oldest among equals', async () => {
    const limiter = new TurnLimiter(() => 10);
    const ranks = { late: 0.9 };
    const order: string[] = [];
    const ask = (name: string, rank: () => number) => limiter.acquire(undefined, rank).then(() => order.push(name));
    // The first goes at once, before anyone else is waiting; the rest wait for turns 100 ms apart.
    const all = [ask('first', () => 0.5), ask('late', () => ranks.late), ask('b', () => 0.5), ask('c', () => 0.5), ask('urgent', () => -1)];
    await vi.advanceTimersByTimeAsync(50);
    // While they wait, the late one falls behind the others: its rank is read at each turn.
    ranks.late = 0.1;
    await vi.advanceTimersByTimeAsync(1_000);
    await Promise.all(all);
    expect(order).toEqual(['first', 'urgent', 'late', 'b', 'c']);
  });

  it('wakes no later than its last waiter leaving: a drain leaves no timer behind, whatever the hold', async () => {
    const limiter = new TurnLimiter(() => 1);
    limiter.hold(60_000);
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error('drain'));
    await expect(waiting).rejects.toThrow('drain');
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects a request whose signal is already aborted, as a RateLimiter promises (not a throw), and keeps the turn for the next', async () => {
    const limiter = new TurnLimiter(() => 4);
    await expect(limiter.acquire(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    expect(await sendTimes(requestsOf(limiter, 2), 1_000)).toEqual([0, 250]);
  });
});

describe('ProcessPace', () => {
  const settings = { maxRps: 10, globalMaxRps: 0, concurrency: 4 };

  it("spaces a source's requests by this process's share of its rate, read at each send", async () => {
    const s = shares();
    const { limiter } = new ProcessPace(s).of('track-a', settings);
    await limiter.acquire();
    // A guest arrived; the worker's beat halves its share. The wait already begun (100 ms at 10/s)
    // stands; every interval after a send from then on is 200 ms.
    s.source = 0.5;
    expect(await sendTimes(requestsOf(limiter, 3), 1_000)).toEqual([100, 300, 500]);
    // The guest left (at 1,000 ms): 100 ms again.
    s.source = 1;
    expect(await sendTimes(requestsOf(limiter, 3), 1_000)).toEqual([1_000, 1_100, 1_200]);
  });

  it('gives every run of a source in the process one pace, and each source its own', async () => {
    const pace = new ProcessPace();
    // A live run and a full of track-a each ask for the source's pace, and get the same one.
    expect(pace.of('track-a', settings)).toBe(pace.of('track-a', settings));
    const a = pace.of('track-a', settings).limiter;
    const b = pace.of('track-b', settings).limiter;
    expect(await sendTimes([a, a, b, b], 1_000)).toEqual([0, 100, 0, 100]);
  });

  it("holds all sources together to the global cap, scaled by this process's share of it", async () => {
    const s = shares();
    const pace = new ProcessPace(s);
    const fast = { maxRps: 100, globalMaxRps: 10, concurrency: 4 };
    const a = pace.of('track-a', fast).limiter;
    const b = pace.of('track-b', fast).limiter;
    // Each source alone could go every 10 ms; together they take turns every 100 ms, the cap's interval.
    const sent = await sendTimes([a, a, a, b, b, b], 1_000);
    expect([...sent].sort((x, y) => x - y)).toEqual([0, 100, 200, 300, 400, 500]);
    // Another process came: half of the cap here, every 200 ms across both sources.
    s.global = 0.5;
    expect(await sendTimes([a, b, a], 1_000)).toEqual([1_000, 1_200, 1_400]);
  });

  it("never holds the global cap's turns for a source still waiting for its own: the cap is used to the full", async () => {
    const pace = new ProcessPace();
    const slow = pace.of('slow', { maxRps: 2, globalMaxRps: 10, concurrency: 4 }).limiter;
    const fast = pace.of('fast', { maxRps: 50, globalMaxRps: 10, concurrency: 4 }).limiter;
    const sent = await sendTimes([...requestsOf(slow, 3), ...requestsOf(fast, 15)], 3_000);
    // Eighteen requests, one every 100 ms: no turn of the cap went unused while the slow source waited.
    expect([...sent].sort((x, y) => x - y)).toEqual(Array.from({ length: 18 }, (_, i) => i * 100));
    const [a, b, c] = sent as [number, number, number];
    expect(Math.min(b - a, c - b)).toBeGreaterThanOrEqual(500);
  });

  it("gives the global cap's turns to live runs first, then to the least advanced full, so fulls begun together end together", async () => {
    const pace = new ProcessPace();
    const fast = { maxRps: 100, globalMaxRps: 10, concurrency: 4 };
    // Two fulls of ten scopes each: `behind` has none done, `ahead` five. Each send finishes a scope.
    const runs = { behind: { done: 0, total: 10 }, ahead: { done: 5, total: 10 } };
    const sends: Array<[string, number]> = [];
    const fullOf = (name: 'behind' | 'ahead') =>
      pace.working(name, () => runs[name].done / runs[name].total, async () => {
        const { limiter } = pace.of(name, fast);
        const left = runs[name].total - runs[name].done;
        await Promise.all(
          Array.from({ length: left }, () =>
            limiter.acquire().then(() => {
              runs[name].done += 1;
              sends.push([name, performance.now()]);
            }),
          ),
        );
      });
    // A live run of a third source joins at 250 ms, with two requests.
    const live = new Promise<void>((resolve) => setTimeout(resolve, 250)).then(() =>
      pace.working('live', () => FIRST_RANK, async () => {
        const { limiter } = pace.of('live', fast);
        await Promise.all([0, 1].map(() => limiter.acquire().then(() => sends.push(['live', performance.now()]))));
      }),
    );
    const all = Promise.all([fullOf('behind'), fullOf('ahead'), live]);
    await vi.advanceTimersByTimeAsync(3_000);
    await all;
    // Seventeen turns, every 100 ms: the cap used to the full.
    expect(sends.map(([, at]) => at)).toEqual(Array.from({ length: 17 }, (_, i) => i * 100));
    // The live run's two went at the first two turns after it came.
    expect(sends.filter(([name]) => name === 'live').map(([, at]) => at)).toEqual([300, 400]);
    // The full ahead waited until the one behind had caught up, then they took turns: they ended together.
    const last = (name: string) => Math.max(...sends.filter(([n]) => n === name).map(([, at]) => at));
    expect(Math.abs(last('behind') - last('ahead'))).toBeLessThanOrEqual(100);
    // Taking turns equally from the start, the one ahead would have ended 500 ms before the other.
    expect(sends.slice(0, 7).every(([name]) => name !== 'ahead')).toBe(true);
  });

  it("keeps a key shared by two processes within its cap + 1: each half spaces a send from the last, with no grid's extra one", async () => {
    // The owner and a guest, each with half of a key's 10/s, their timers late by up to the grid's tolerance.
    let seed = 11;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const sleep = (ms: number, signal?: AbortSignal) => abortableSleep(ms + 5 * random(), signal);
    const [owner, guest] = [new ProcessPace(shares(0.5), sleep), new ProcessPace(shares(0.5), sleep)];
    const key = { maxRps: 10, globalMaxRps: 0, concurrency: 4 };
    const sent = await sendTimes([...requestsOf(owner.of('track-a', key).limiter, 300), ...requestsOf(guest.of('track-a', key).limiter, 300)], 70_000);
    const busiest = Math.max(...sent.map((t) => sent.filter((u) => u > t - 1000 && u <= t).length));
    expect(busiest).toBeLessThanOrEqual(11);
    expect(busiest).toBeGreaterThanOrEqual(9);
  });

  it("shares a source's concurrency as its rate, never below one request in flight", () => {
    const s = shares(0.5);
    const pace = new ProcessPace(s);
    const four = pace.of('track-a', { ...settings, concurrency: 4 });
    const one = pace.of('track-b', { ...settings, concurrency: 1 });
    expect([four.concurrency(), one.concurrency()]).toEqual([2, 1]);
    s.source = 1 / 3;
    expect([four.concurrency(), one.concurrency()]).toEqual([1, 1]);
    s.source = 1;
    expect([four.concurrency(), one.concurrency()]).toEqual([4, 1]);
  });

  it('applies settings given later for a source (a test changing them between runs) to its pace from then on', async () => {
    const pace = new ProcessPace();
    const first = pace.of('track-a', settings);
    const later = pace.of('track-a', { ...settings, maxRps: 2, concurrency: 3 });
    expect(later).toBe(first);
    expect(first.concurrency()).toBe(3);
    expect(await sendTimes(requestsOf(first.limiter, 3), 2_000)).toEqual([0, 500, 1_000]);
  });
});
