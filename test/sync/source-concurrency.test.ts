import { describe, expect, it } from 'vitest';

import { httpGet, type Transport } from '../../src/api/http-get.js';
import { createSilentLogger } from '../../src/log.js';
import { RunCounters } from '../../src/sync/counters.js';
import { createRunClient } from '../../src/sync/run-client.js';
import { useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';

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

  it('holds for all runs of the source together, as a live run beside a full one in one worker', async () => {
    const { counts, fetch } = countingTransport();
    const deps = { pool: db.pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2' }), logger: createSilentLogger(), fetch };
    const halt = new AbortController().signal;
    const runs = ['full', 'live'].map(() => createRunClient(deps, { source: 'default', counters: new RunCounters(), logger: deps.logger, halt }));
    await Promise.all(runs.flatMap((api) => Array.from({ length: 8 }, () => api.get('/v2/schedules/years/', {}))));
    expect(counts.sent).toBe(16);
    // Two runs of two slots each would have had four out at once.
    expect(counts.peak).toBe(2);
  });

  it("leaves another source's concurrency its own", async () => {
    const { counts, fetch } = countingTransport();
    const deps = { pool: db.pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2' }), logger: createSilentLogger(), fetch };
    const halt = new AbortController().signal;
    const runs = ['track-a', 'track-b'].map((source) => createRunClient(deps, { source, counters: new RunCounters(), logger: deps.logger, halt }));
    await Promise.all(runs.flatMap((api) => Array.from({ length: 8 }, () => api.get('/v2/schedules/years/', {}))));
    expect(counts.peak).toBe(4);
  });
});
