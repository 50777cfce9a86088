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

/** A rate far above what the test sends: paced, so the slots are shared across processes (not at 0). */
const PACED = { PITWALL_MAX_RPS: '1000', PITWALL_GLOBAL_MAX_RPS: '0' };

describe("a source's concurrency (PITWALL_CONCURRENCY)", () => {
  // Each answer takes 40 ms, so requests sent together are in flight together.
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 3, faults: { latencyMs: 40 } });
  /** A run's row, running: the slots a run's requests hold name it. */
  const runningRun = async (source = 'default') =>
    Number((await db.pool.query(`INSERT INTO pitwall.sync_runs (source, job, trigger, status) VALUES ($1, 'full', 'manual', 'running') RETURNING run_id`, [source])).rows[0].run_id);

  /**
   * One run client per entry (a pool and a source; a pool of its own is another process's way
   * in), eight requests each sent at once; the transport's counts.
   */
  async function sendFromRuns(entries: ReadonlyArray<{ pool: pg.Pool; source: string }>, env: Record<string, string>) {
    const { counts, fetch } = countingTransport();
    const halt = new AbortController().signal;
    const runs = await Promise.all(
      entries.map(async ({ pool, source }) => {
        const deps = { pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2', ...env }), logger: createSilentLogger(), fetch };
        return createRunClient(deps, { runId: await runningRun(source), source, counters: new RunCounters(), logger: deps.logger, halt });
      }),
    );
    await Promise.all(runs.flatMap((api) => Array.from({ length: 8 }, () => api.get('/v2/schedules/years/', {}))));
    return counts;
  }

  /** A second pool on the test database, ended when `use` is done. */
  async function withOtherPool<T>(use: (other: pg.Pool) => Promise<T>): Promise<T> {
    const other = new pg.Pool({ connectionString: db.url, max: 4 });
    try {
      return await use(other);
    } finally {
      await other.end();
    }
  }

  it('holds for all runs of the source together, as a live run beside a full one in one worker', async () => {
    const counts = await sendFromRuns([{ pool: db.pool, source: 'default' }, { pool: db.pool, source: 'default' }], PACED);
    expect(counts.sent).toBe(16);
    // Two runs of two slots each would have had four out at once.
    expect(counts.peak).toBe(2);
  });

  it('holds across processes: two pools, as two workers, share the source\'s slots in pitwall.request_slots', async () => {
    const counts = await withOtherPool((other) => sendFromRuns([{ pool: db.pool, source: 'default' }, { pool: other, source: 'default' }], PACED));
    expect(counts.sent).toBe(16);
    // Each pool alone allows two: four out at once without the shared slots.
    expect(counts.peak).toBe(2);
    // Every slot was given back.
    const { rows } = await db.pool.query(`SELECT slot, run_id FROM pitwall.request_slots WHERE source = 'default' ORDER BY slot`);
    expect(rows).toEqual([
      { slot: 1, run_id: null },
      { slot: 2, run_id: null },
    ]);
  });

  it('frees the slots of a run no longer running at once, and a running one\'s when its lease ends', async () => {
    const { counts, fetch } = countingTransport();
    const deps = { pool: db.pool, config: testConfig(db, sim, { PITWALL_CONCURRENCY: '2', ...PACED }), logger: createSilentLogger(), fetch };
    const api = createRunClient(deps, { runId: await runningRun(), source: 'default', counters: new RunCounters(), logger: deps.logger, halt: new AbortController().signal });
    const timed = async () => {
      const started = performance.now();
      await api.get('/v2/schedules/years/', {});
      return performance.now() - started;
    };
    // Both slots held by another run that still runs, leased for another second.
    const holder = await runningRun();
    const hold = `UPDATE pitwall.request_slots SET run_id = $1, until = clock_timestamp() + interval '1 second' WHERE source = 'default'`;
    await db.pool.query(hold, [holder]);
    expect(await timed()).toBeGreaterThan(900);
    // Held again, by a run whose process died: marked abandoned, its slots are free at once.
    await db.pool.query(hold.replace('1 second', '1 hour'), [holder]);
    await db.pool.query(`UPDATE pitwall.sync_runs SET status = 'abandoned' WHERE run_id = $1`, [holder]);
    expect(await timed()).toBeLessThan(800);
    expect(counts.sent).toBe(2);
  });

  it('is each process\'s own when the source is unpaced (PITWALL_MAX_RPS=0): no statement per request', async () => {
    const counts = await withOtherPool((other) => sendFromRuns([{ pool: db.pool, source: 'unpaced' }, { pool: other, source: 'unpaced' }], { PITWALL_MAX_RPS: '0' }));
    expect(counts.peak).toBe(4);
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.request_slots WHERE source = 'unpaced'`)).rows).toEqual([{ n: 0 }]);
  });

  it("leaves another source's concurrency its own", async () => {
    const counts = await sendFromRuns([{ pool: db.pool, source: 'track-a' }, { pool: db.pool, source: 'track-b' }], PACED);
    expect(counts.peak).toBe(4);
  });
});
