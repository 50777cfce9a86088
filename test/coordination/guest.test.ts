import { describe, expect, it, onTestFinished } from 'vitest';

import { httpGet, type Transport } from '../../src/api/http-get.js';
import { BEAT_MS } from '../../src/coordination/lease.js';
import { createPool } from '../../src/db/pool.js';
import { createSilentLogger } from '../../src/log.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import type { Source } from '../../src/sources.js';
import { runSync, type RunSummary, type SyncOptions } from '../../src/sync/run.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { measureArrivalBunching, type ArrivalBunching } from '../helpers/arrival-bunching.js';
import type { TestDatabase } from '../helpers/db.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';
import { simulatorClock, workerConfig } from '../worker/helpers.js';

/**
 * A worker (createWorker, in this process) and a manual sync (runSync on a pool of its own, as
 * `pitwall sync` in another process) working one warehouse and one simulator. Each sends through
 * a transport that notes when it sent, so the pace of each, and of both together, can be read
 * beside the simulator's own count per key.
 */

/** The most of `times` (ms) within any one second, counted as the simulator counts its arrivals. */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let end = 0, start = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * Arrivals bunch at the simulator, which shares this process's event loop with both senders: on a
 * loaded machine a request held up behind other work is handled beside the next one, so the
 * simulator counts more in a second than were sent in it (seen: 12 arrivals at a cap of 10, while
 * each process kept its sends within its half). The pace is judged where it is kept, at the sends;
 * the simulator's count, allowed the bunching measured in the same test, still catches an overrun.
 */
function bunchingOfThisTest(): ArrivalBunching {
  const bunching = measureArrivalBunching();
  onTestFinished(() => bunching.stop());
  return bunching;
}

/** When each process sent its requests. */
function sendLog() {
  const sent = new Map<string, number[]>();
  return {
    transport: (who: string): Transport => {
      const times: number[] = [];
      sent.set(who, times);
      return (url, init) => {
        times.push(performance.now());
        return httpGet(url, init);
      };
    },
    of: (who: string): number[] => sent.get(who) ?? [],
    all: (): number[] => [...sent.values()].flat(),
  };
}

/**
 * Polls `done` every 50 ms (real time: a worker's beat is being waited for). The bound is a hang
 * guard below the test's own, not a budget: a busy machine took more than 20 s to send 20 requests.
 */
async function waitUntil(done: () => boolean, what: string, timeoutMs = 240_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits for `run` to settle, or until `enough()`: then `stop()` drains it (a run's drain signal,
 * a worker's stop), and its summary is awaited. Keeps each run to the requests a test needs.
 */
async function until(run: Promise<RunSummary>, enough: () => boolean, stop: () => unknown): Promise<RunSummary> {
  let settled = false;
  const watched = run.finally(() => void (settled = true));
  await waitUntil(() => settled || enough(), 'the run has sent enough');
  await stop();
  return watched;
}

/** A started worker, stopped when the test ends. */
async function startWorker(
  { db, sim }: { db: TestDatabase; sim: RunningSimulator },
  env: Record<string, string>,
  transport: Transport,
  sources?: Source[],
): Promise<Worker> {
  const config = sources?.[0]?.config ?? workerConfig(db, sim, env);
  const worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim), fetch: transport }, sources ? { sources } : {});
  onTestFinished(() => worker.stop());
  await worker.start();
  return worker;
}

/** The sends of `times` between the first and the last of `window`: what a process sent while the other worked too. */
const during = (times: readonly number[], window: readonly number[]) => times.filter((t) => t >= Math.min(...window) && t <= Math.max(...window));

/** Requests a manual run sends beside the worker before it is drained: four seconds at a half share of 10/s. */
const ENOUGH = 20;
const STOPPED = ['succeeded', 'interrupted'];

describe('a manual sync of a source a worker owns', () => {
  /** The source's own rate (PITWALL_MAX_RPS), measured per key at the simulator; no global cap. */
  const N = 10;
  const ENV = { PITWALL_MAX_RPS: String(N), PITWALL_GLOBAL_MAX_RPS: '0' };
  // A small full is 343 requests, half a minute at N, and a first season 117: each outlasts the
  // other run of its test, which is drained after ENOUGH requests.
  const { db, sim } = useWarehouse('postgres', { scale: 'small', seed: 21 });
  // Another process's way into the warehouse.
  const other = useResource("the manual sync's pool", async () => createPool(db.url, { max: 6 }), (p) => p.end());
  /** A manual run (`pitwall sync --job <job>`), drained by `drain`. */
  const manual = (transport: Transport, job: SyncOptions['job'], drain: AbortSignal) =>
    runSync({ pool: other, config: testConfig(db, sim, ENV), logger: createSilentLogger(), now: simulatorClock(sim), fetch: transport }, { job, drain });

  it("waits for the worker's beat, then each takes half of the source's rate: the key's busiest second stays within PITWALL_MAX_RPS + 1", async () => {
    sim.resetRequests();
    const bunching = bunchingOfThisTest();
    const log = sendLog();
    const worker = await startWorker({ db, sim }, ENV, log.transport('worker'));
    expect(worker.owned()).toEqual(['default']);
    const full = worker.runJob('full');
    await waitUntil(() => log.of('worker').length >= N, 'the full has sent for a second');
    const arrived = performance.now();
    const drain = new AbortController();
    const season = await until(manual(log.transport('guest'), 'season', drain.signal), () => log.of('guest').length >= ENOUGH, () => drain.abort());
    expect(STOPPED).toContain(season.status);
    const guest = log.of('guest');
    const mine = log.of('worker');
    // The worker's full goes on past the guest's last request (they shared the key throughout), then stops.
    await until(full, () => mine.at(-1)! > guest.at(-1)!, () => worker.stop());

    expect(guest.length).toBeGreaterThanOrEqual(ENOUGH);
    // The guest sent nothing before the worker's next beat could have seen it.
    expect(guest[0]! - arrived).toBeGreaterThan(BEAT_MS);
    expect(mine.at(-1)!).toBeGreaterThan(guest.at(-1)!);
    expect(busiestSecond(guest)).toBeLessThanOrEqual(N / 2 + 1);
    expect(busiestSecond(during(mine, guest))).toBeLessThanOrEqual(N / 2 + 1);
    // Before the guest, the worker had the whole rate: its limiter spaced requests 1/N s apart,
    // where half the rate never lets two come closer than 2/N s. (How many it managed in its
    // busiest second depends on the machine; that it was allowed closer than 2/N s does not.)
    const before = mine.filter((t) => t < guest[0]!);
    expect(Math.min(...before.slice(1).map((t, i) => t - before[i]!))).toBeLessThan(1_500 / N);
    expect(busiestSecond(log.all())).toBeLessThanOrEqual(N + 1);
    expect(sim.requests().bySite[1]?.peakPerSecond).toBeLessThanOrEqual(N + 1 + bunching.allowance(N));
  });

  it('holds the key to PITWALL_MAX_RPS + 1 when a worker takes the source while a manual full already works it', async () => {
    sim.resetRequests();
    const bunching = bunchingOfThisTest();
    const log = sendLog();
    const drain = new AbortController();
    // The manual full starts alone: no worker owns the source, so it goes at once, at the whole rate.
    const full = manual(log.transport('guest'), 'full', drain.signal);
    try {
      await waitUntil(() => log.of('guest').length >= N, 'the manual full has sent for a second');
      // The worker sees a process at work, takes the source at its first beat, and runs a season.
      // Each alone may use the whole rate; while both work the key, the two together keep to it.
      const worker = await startWorker({ db, sim }, ENV, log.transport('worker'));
      await waitUntil(() => worker.owned().includes('default'), 'the worker owns the source');
      const season = await until(worker.runJob('season'), () => log.of('worker').length >= ENOUGH, () => worker.stop());
      expect(STOPPED).toContain(season.status);
    } finally {
      // The manual full goes on past the worker's last request (they shared the key throughout), then is drained.
      const [mine, guest] = [log.of('worker'), log.of('guest')];
      await until(full, () => mine.length === 0 || guest.at(-1)! > mine.at(-1)!, () => drain.abort());
    }
    const mine = log.of('worker');
    expect(mine.length).toBeGreaterThanOrEqual(ENOUGH);
    expect(log.of('guest').at(-1)!).toBeGreaterThan(mine.at(-1)!);
    expect(busiestSecond(log.all())).toBeLessThanOrEqual(N + 1);
    expect(sim.requests().bySite[1]?.peakPerSecond).toBeLessThanOrEqual(N + 1 + bunching.allowance(N));
  });
});

describe('the cap on all sources together (PITWALL_GLOBAL_MAX_RPS), shared by a worker and a manual sync', () => {
  /** Each key's own rate, far above the global cap: only the cap holds them. */
  const ENV = { PITWALL_MAX_RPS: '50', PITWALL_GLOBAL_MAX_RPS: '10' };
  const CAP = 10;
  /** The worker and the manual sync. */
  const PROCESSES = 2;
  const { db, sim } = useWarehouse('postgres', { scale: 'small', seed: 22, sites: 2 });
  const other = useResource("the manual sync's pool", async () => createPool(db.url, { max: 6 }), (p) => p.end());
  const sourceOf = (i: number): Source => ({ name: `track-${'ab'[i]}`, config: { ...workerConfig(db, sim, ENV), apiKey: sim.sites[i]!.key } });

  /**
   * A worker of `sources` runs track-a's full; a manual season of track-b runs beside it until it
   * has sent ENOUGH. Every send, by process.
   */
  async function seasonBesideFull(sources: Source[]) {
    const log = sendLog();
    const worker = await startWorker({ db, sim }, ENV, log.transport('worker'), sources);
    expect(worker.owned().sort()).toEqual(sources.map((s) => s.name));
    const full = worker.runJob('full', 'manual', 'track-a');
    await waitUntil(() => log.of('worker').length >= CAP, 'the full has sent for a second');
    const { name, config } = sourceOf(1);
    const drain = new AbortController();
    const deps = { pool: other, config, source: name, logger: createSilentLogger(), now: simulatorClock(sim), fetch: log.transport('guest') };
    const season = await until(runSync(deps, { job: 'season', drain: drain.signal }), () => log.of('guest').length >= ENOUGH, () => drain.abort());
    expect(STOPPED).toContain(season.status);
    const [mine, guest] = [log.of('worker'), log.of('guest')];
    // The worker's full goes on past the guest's last request (they shared the cap throughout), then stops.
    await until(full, () => mine.at(-1)! > guest.at(-1)!, () => worker.stop());
    expect(guest.length).toBeGreaterThanOrEqual(ENOUGH);
    expect(mine.at(-1)!).toBeGreaterThan(guest.at(-1)!);
    return log;
  }

  it('holds both keys together to the cap + 1 per process, beside a worker that owns both sources', async () => {
    const log = await seasonBesideFull([sourceOf(0), sourceOf(1)]);
    expect(busiestSecond(log.all())).toBeLessThanOrEqual(CAP + PROCESSES);
    // Each took its share of the cap while both worked, by the sources it works: the worker owns
    // two, the guest works one (src/coordination/lock-picture.ts).
    expect(busiestSecond(log.of('guest'))).toBeLessThanOrEqual(CAP / 3 + 1);
    expect(busiestSecond(during(log.of('worker'), log.of('guest')))).toBeLessThanOrEqual((CAP * 2) / 3 + 1);
  });

  it("holds both keys together to the cap + 1 per process when no worker owns the manual sync's source", async () => {
    // The worker runs track-a alone: track-b is the manual sync's, which has no owner to wait for.
    const log = await seasonBesideFull([sourceOf(0)]);
    expect(busiestSecond(log.all())).toBeLessThanOrEqual(CAP + PROCESSES);
  });
});
