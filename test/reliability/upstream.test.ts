import { afterEach, describe, expect, it } from 'vitest';

import { createApiClient } from '../../src/api/client.js';
import { loadConfig } from '../../src/config.js';
import { createSilentLogger } from '../../src/log.js';
import { useSimulator, useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

/**
 * How a run treats an upstream that refuses, breaks down or sends garbage, against the real
 * simulator. Where a fault is aimed at one request, the transport aims it (a fetch wrapper)
 * while the simulator stays honest, or the simulator's own answer is used (a wrong key).
 */

const FAST = { PITWALL_RETRY_BASE_MS: '5', PITWALL_MAX_RETRY_WAIT_MS: '2000' };

/** A fetch that hands matching requests to `spoil`, and counts them. */
function aimed(match: (url: URL) => boolean, spoil: (url: URL, init?: RequestInit) => Promise<Response>) {
  const hits: string[] = [];
  const f: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (!match(url)) return fetch(input, init);
    hits.push(url.pathname + url.search.replace(/key=[^&]*/, 'key=…'));
    return spoil(url, init);
  };
  return { fetch: f, hits };
}

describe('a run against a misbehaving upstream', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5 });
  afterEach(() => sim.setFaults({}));

  it('records RequestValid 0 on its scope with the reason, goes on, and retries it next run', async () => {
    let victim: string | undefined;
    // The simulator's own answer to a bad key, for the first schedule's event list only.
    const t = aimed(
      (u) => u.pathname === '/v2/schedules/events/' && (victim ??= u.searchParams.get('ScheduleId')!) === u.searchParams.get('ScheduleId'),
      (u, init) => {
        u.searchParams.set('key', 'not-the-key');
        return fetch(u, init);
      },
    );
    const first = await syncOnce(db, sim, { fetch: t.fetch, env: FAST });
    expect(first).toMatchObject({ status: 'failed', scopes: { invalid: 1, failed: 0 } });
    expect(first.scopes.loaded).toBeGreaterThan(10);
    expect(t.hits).toHaveLength(1);
    const state = await db.pool.query(`SELECT status, last_error FROM pitwall.sync_state WHERE endpoint = 'events' AND params = $1`, [
      `ScheduleId=${victim}`,
    ]);
    expect(state.rows).toEqual([{ status: 'invalid', last_error: 'RequestValid is 0' }]);
    const run = await db.pool.query('SELECT status, error FROM pitwall.sync_runs WHERE run_id = $1', [first.runId]);
    expect(run.rows[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/1 answered RequestValid 0/) });

    const second = await syncOnce(db, sim, { env: FAST });
    expect(second.status).toBe('succeeded');
    const after = await db.pool.query(`SELECT status FROM pitwall.sync_state WHERE endpoint = 'events' AND params = $1`, [`ScheduleId=${victim}`]);
    expect(after.rows[0].status).toBe('ok');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('retries a body that is not JSON, then files it in rejects with a bounded snippet and goes on', async () => {
    const garbage = `{"RequestValid":1,"Years":[${'{"ScheduleYear":2020,"Pad":"xxxxxxxxxxxxxxxxxxxxxxxx"},'.repeat(400)}`;
    const t = aimed(
      (u) => u.pathname === '/v2/points/years/',
      async () => new Response(garbage, { status: 200, headers: { 'content-type': 'application/json' } }),
    );
    const summary = await syncOnce(db, sim, { fetch: t.fetch, env: { ...FAST, PITWALL_MAX_ATTEMPTS: '3' } });
    expect(t.hits).toHaveLength(3);
    expect(summary.retries).toBeGreaterThanOrEqual(2);
    expect(summary).toMatchObject({ status: 'failed', scopes: { failed: 1 } });
    const { rows } = await db.pool.query(
      `SELECT reason, payload, octet_length(payload_snippet) AS bytes FROM pitwall.rejects WHERE endpoint = 'point_years' AND run_id = $1`,
      [summary.runId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].reason).toMatch(/not JSON/);
    expect(rows[0].payload).toBeNull();
    expect(rows[0].bytes).toBeGreaterThan(1000);
    expect(rows[0].bytes).toBeLessThanOrEqual(2048);
    // The other side of the tree loaded, and the refused scope kept what it had.
    expect(summary.scopes.unchanged + summary.scopes.loaded).toBeGreaterThan(50);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('repairs the ,, defect wherever it appears and loads the same warehouse', async () => {
    sim.setQuirks({ doubleComma: 1 });
    sim.setFaults({ rate: 1, kinds: ['doubleComma'] });
    try {
      const summary = await syncOnce(db, sim, { env: FAST });
      expect(summary.status).toBe('succeeded');
      expect(summary.repairedBodies).toBeGreaterThan(50);
      expect(sim.requests().faults.doubleComma).toBeGreaterThan(10);
      expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    } finally {
      sim.setQuirks({});
    }
  });

  it('stops early and fails when the upstream goes down mid-run, keeping what it committed', async () => {
    // A complete warehouse first, whatever ran before: the outage run must leave it whole.
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    await db.pool.query('TRUNCATE pitwall.sync_state');
    sim.resetRequests();
    const env = { ...FAST, PITWALL_MAX_CONSECUTIVE_FAILURES: '4', PITWALL_MAX_ATTEMPTS: '2', PITWALL_CONCURRENCY: '2' };
    let downAt = -1;
    const summary = await syncOnce(db, sim, {
      env,
      onProgress: ({ done }) => {
        if (done === 15 && downAt < 0) {
          downAt = sim.requests().total;
          sim.setFaults({ rate: 1, kinds: ['http503'], retryAfterSeconds: 0 });
        }
      },
    });
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/upstream considered down/);
    // After the outage: the failing requests and those of the other visits already under way
    // (two per request slot), each with its retry; no more. A slot is held per attempt, so a
    // visit waiting to retry lets another visit's request out meanwhile.
    const afterOutage = sim.requests().total - downAt;
    expect(afterOutage).toBeLessThanOrEqual((4 + (2 * 2 - 1)) * 2);
    const kept = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE status = 'ok' AND last_run_id = $1`, [summary.runId]);
    expect(kept.rows[0].n).toBeGreaterThanOrEqual(10);
    const run = await db.pool.query('SELECT status FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
    expect(run.rows[0].status).toBe('failed');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});

describe('Retry-After from the simulator', () => {
  const sim = useSimulator({ scale: 'tiny', seed: 5 });

  const clientWith = (now: number) => {
    const delays: number[] = [];
    const client = createApiClient({
      baseUrl: sim.url,
      apiKey: sim.key,
      timeoutMs: 2000,
      maxAttempts: 2,
      maxRetryWaitMs: 60_000,
      maxRps: 0,
      logger: createSilentLogger(),
      now: () => now,
      random: () => 0.5,
      backoff: { baseMs: 40, capMs: 1000 },
      sleep: async (ms) => void delays.push(ms),
    });
    return { client, delays };
  };

  it.each([
    ['seconds', 7, 7000],
    ['an HTTP date', 'Wed, 01 Jan 2031 00:00:09 GMT', 9000],
    ['zero, which falls back to the backoff', 0, 20],
  ] as const)('is honoured given as %s', async (_form, retryAfterSeconds, waitMs) => {
    sim.setFaults({ rate: 1, kinds: ['http429'], retryAfterSeconds });
    const { client, delays } = clientWith(Date.parse('2031-01-01T00:00:00Z'));
    await client.get('/v2/schedules/years/', {}).catch(() => undefined);
    expect(delays).toEqual([waitMs]);
  });
});

describe('retry settings', () => {
  it('are read from the environment with their defaults', () => {
    expect(loadConfig({})).toMatchObject({ retryBaseMs: 500, maxConsecutiveFailures: 20 });
    const set = loadConfig({ PITWALL_RETRY_BASE_MS: '25', PITWALL_MAX_CONSECUTIVE_FAILURES: '3' });
    expect(set).toMatchObject({ retryBaseMs: 25, maxConsecutiveFailures: 3 });
    expect(() => loadConfig({ PITWALL_MAX_CONSECUTIVE_FAILURES: '0' })).toThrow(/PITWALL_MAX_CONSECUTIVE_FAILURES/);
  });
});
