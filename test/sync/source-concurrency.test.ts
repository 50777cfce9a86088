import { describe, expect, it } from 'vitest';

import { httpGet, type Transport } from '../../src/api/http-get.js';
import { ProcessPace, type PaceShares } from '../../src/coordination/pace.js';
import { createSilentLogger } from '../../src/log.js';
import { RunCounters } from '../../src/sync/counters.js';
import { createRunClient } from '../../src/sync/run-client.js';
import { createWorker } from '../../src/worker/worker.js';
import { useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';
import { simulatorClock, workerConfig } from '../worker/helpers.js';

/** httpGet, counting the requests out at once: from sending until the body is read. */
function countingTransport() {
  const counts = { inFlight: 0, peak: 0, sent: 0 };
  const fetch: Transport = async (url, init) => {
    counts.sent += 1;
    counts.peak = Math.max(counts.peak, ++counts.inFlight);
    const res = await httpGet(url, init).catch((err: unknown) => {
      counts.inFlight -= 1;
      throw err;
    });
    if (!res.ok) counts.inFlight -= 1;
    return res.ok ? { ...res, arrayBuffer: () => res.arrayBuffer().finally(() => (counts.inFlight -= 1)) } : res;
  };
  return { counts, fetch };
}

describe("a source's concurrency (PITWALL_CONCURRENCY) in one process", () => {
  // Each answer takes 40 ms, so requests sent together are in flight together.
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 3, faults: { latencyMs: 40 } });

  /**
   * One run client per source named (a source named twice: two runs of it), each from `pace` (one
   * process's), eight requests from each sent at once, unpaced; the transport's counts.
   */
  async function sendFromRuns(sources: readonly string[], pace: ProcessPace) {
    const { counts, fetch } = countingTransport();
    const deps = { pool: db.pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '4' }), logger: createSilentLogger(), fetch };
    const halt = new AbortController().signal;
    const clients = sources.map((source) => createRunClient(deps, { source, counters: new RunCounters(), logger: deps.logger, halt, held: () => undefined, pace }));
    await Promise.all(clients.flatMap((api) => Array.from({ length: 8 }, () => api.get('/v2/schedules/years/', {}))));
    return counts;
  }

  it('holds for all runs of the source together, as a season run beside a full', async () => {
    const counts = await sendFromRuns(['default', 'default'], new ProcessPace());
    expect(counts.sent).toBe(16);
    // Two runs of four each would have had eight out at once.
    expect(counts.peak).toBe(4);
  });

  it("leaves another source's concurrency its own", async () => {
    const counts = await sendFromRuns(['track-a', 'track-b'], new ProcessPace());
    expect(counts.sent).toBe(16);
    expect(counts.peak).toBe(8);
  });

  it("is a guest's share of it while the guest works the source beside its owner, never below one", async () => {
    let share = 0.5;
    const guest: PaceShares = { sourceShare: () => share, globalShare: () => 1 };
    expect((await sendFromRuns(['default'], new ProcessPace(guest))).peak).toBe(2);
    share = 1 / 8;
    expect((await sendFromRuns(['default'], new ProcessPace(guest))).peak).toBe(1);
  });

  it('holds in a worker for a live and a season run beside its full', async () => {
    const { counts, fetch } = countingTransport();
    const config = workerConfig(db, sim, { PITWALL_CONCURRENCY: '2', PITWALL_WORKER_JOBS: '3' });
    const worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim), fetch });
    await worker.start();
    try {
      const runs = await Promise.all([worker.runJob('full'), worker.runJob('season'), worker.runJob('live')]);
      expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    } finally {
      await worker.stop();
    }
    // The season's and the live run's requests went while the full's were out (about 130 in all).
    expect(counts.sent).toBeGreaterThan(120);
    // Three runs of two each would have had up to six out at once.
    expect(counts.peak).toBe(2);
  });
});
