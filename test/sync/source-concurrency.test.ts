import pg from 'pg';
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

describe("a source's concurrency (PITWALL_CONCURRENCY)", () => {
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

  it('holds across processes: two pools, as two workers, share the source\'s slots in pitwall.request_slots', async () => {
    const { counts, fetch } = countingTransport();
    // A pool of its own is another process's way in: its own in-process limit, the same warehouse.
    const other = new pg.Pool({ connectionString: db.url, max: 4 });
    try {
      const halt = new AbortController().signal;
      const runs = [db.pool, other].map((pool) => {
        const deps = { pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2' }), logger: createSilentLogger(), fetch };
        return createRunClient(deps, { source: 'default', counters: new RunCounters(), logger: deps.logger, halt });
      });
      await Promise.all(runs.flatMap((api) => Array.from({ length: 8 }, () => api.get('/v2/schedules/years/', {}))));
      expect(counts.sent).toBe(16);
      // Each pool alone allows two: four out at once without the shared slots.
      expect(counts.peak).toBe(2);
      // Every slot was given back.
      const { rows } = await db.pool.query(`SELECT slot, holder FROM pitwall.request_slots WHERE source = 'default' ORDER BY slot`);
      expect(rows).toEqual([
        { slot: 1, holder: null },
        { slot: 2, holder: null },
      ]);
    } finally {
      await other.end();
    }
  });

  it('frees a slot whose holder died when its lease ends', async () => {
    const { counts, fetch } = countingTransport();
    // A dead process's two slots, leased for another second.
    await db.pool.query(`UPDATE pitwall.request_slots SET holder = 'dead', until = clock_timestamp() + interval '1 second' WHERE source = 'default'`);
    const deps = { pool: db.pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2' }), logger: createSilentLogger(), fetch };
    const api = createRunClient(deps, { source: 'default', counters: new RunCounters(), logger: deps.logger, halt: new AbortController().signal });
    const started = performance.now();
    await api.get('/v2/schedules/years/', {});
    expect(performance.now() - started).toBeGreaterThan(900);
    expect(counts.sent).toBe(1);
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
