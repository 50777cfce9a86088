import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createApiClient } from '../../src/api/client.js';
import type { ApiError } from '../../src/api/errors.js';
import { createSilentLogger } from '../../src/log.js';
import { endpoint } from '../../src/sync/endpoints.js';
import { useWarehouse } from '../helpers/fixture.js';
import { startHostileUpstream, type HostileUpstream, type Hostility } from '../helpers/hostile-upstream.js';
import { syncOnce } from '../helpers/sync.js';
import { fetchTruth } from '../helpers/warehouse.js';

/**
 * Answers that cost a scope time or hide what went wrong, through the suite's hostile proxy in
 * front of the simulator (docs/reliability.md, "A broken or hostile upstream"). Each verdict is a
 * count or a kind: a busy machine changes how long the deadlines take, never what they decide.
 */
const RESULTS = endpoint('results').path;
const VICTIMS: ReadonlyArray<Hostility> = ['silent', 'half-body', 'utf-16', 'klingon'];

describe('hostile answers', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5 });
  let upstream: HostileUpstream;
  /** The event each hostility is served for, on the results endpoint. */
  const eventOf = new Map<Hostility, number>();

  beforeAll(async () => {
    const truth = await fetchTruth(sim.url);
    const events = [...new Set(truth.results.map((r) => Number(r.event_id)))].sort((a, b) => a - b);
    VICTIMS.forEach((kind, i) => eventOf.set(kind, events[i * 2]!));
    upstream = await startHostileUpstream(sim.url, new Map(VICTIMS.map((kind) => [`${RESULTS}?EventId=${eventOf.get(kind)}`, kind])));
  });
  afterAll(() => upstream.close());

  const client = (baseUrl = upstream.url) =>
    createApiClient({ baseUrl, apiKey: sim.key, timeoutMs: 500, maxAttempts: 5, maxRetryWaitMs: 60_000, maxRps: 0, logger: createSilentLogger(), sleep: async () => undefined });
  const failure = async (kind: Hostility) => (await client().get(RESULTS, { EventId: eventOf.get(kind) }).catch((e: unknown) => e)) as ApiError;
  const hits = (kind: Hostility) => upstream.hits.get(`${RESULTS}?EventId=${eventOf.get(kind)}`) ?? 0;

  it('gives a server that never sends a status line one retry, as a slow body gets, not five', async () => {
    const before = hits('silent');
    const err = await failure('silent');
    expect({ kind: err.kind, attempts: err.attempts }).toEqual({ kind: 'timeout', attempts: 2 });
    expect(hits('silent') - before).toBe(2);
  });

  it('names a body cut off at half its Content-Length as short: bytes received of bytes announced', async () => {
    const err = await failure('half-body');
    const [, received, announced] = /closed after (\d+) of the (\d+) bytes its Content-Length announced/.exec(err.message) ?? [];
    expect({ kind: err.kind, half: Number(received) === Math.floor(Number(announced) / 2) }).toEqual({ kind: 'short-body', half: true });
    expect(err.message).toContain('the body was cut short');
  });

  it('decodes a body in the charset its Content-Type names, and refuses one it cannot decode, naming it', async () => {
    const params = { EventId: eventOf.get('utf-16') };
    const [got, truth] = await Promise.all([client().get(RESULTS, params), client(sim.url).get(RESULTS, params)]);
    expect(got.kind).toBe('ok');
    expect(got.kind === 'ok' && got.body).toEqual(truth.kind === 'ok' && truth.body);

    const err = await failure('klingon');
    expect({ kind: err.kind, attempts: err.attempts }).toEqual({ kind: 'charset', attempts: 1 });
    expect(err.message).toContain('"x-klingon"');
  });

  it('sets a scope that times out run after run aside after three runs; a run that ended with the upstream down counts for none', async () => {
    // Generous for the honest scopes on a busy machine; the silent one costs two of these a run.
    const env = { MRP_API_BASE_URL: upstream.url, PITWALL_REQUEST_TIMEOUT_MS: '2000', PITWALL_RETRY_BASE_MS: '10' };
    /** Each victim's record: runs in a row failed, and whether it is set aside. */
    const states = async () => {
      const { rows } = await db.pool.query<{ params: string; failed_runs: number; aside: boolean }>(
        `SELECT params, failed_runs, set_aside_until IS NOT NULL AS aside FROM pitwall.sync_state WHERE endpoint = 'results' AND params = ANY($1::text[])`,
        [VICTIMS.map((kind) => `EventId=${eventOf.get(kind)}`)],
      );
      const shown = (kind: Hostility) => {
        const row = rows.find((r) => r.params === `EventId=${eventOf.get(kind)}`);
        return row && `${row.failed_runs}${row.aside ? ' aside' : ''}`;
      };
      return Object.fromEntries(VICTIMS.map((kind) => [kind, shown(kind)]));
    };
    const state = async () => (await states()).silent;

    await syncOnce(db, sim, { env });
    await syncOnce(db, sim, { env });
    expect(await states()).toEqual({ silent: '2', 'half-body': '2', 'utf-16': '0', klingon: '2 aside' });

    // Everything silent: no root gets an answer, and the run's failures are taken back.
    upstream.setAll('silent');
    const down = await syncOnce(db, sim, { env });
    upstream.setAll(null);
    const discounted = await db.pool.query<{ failed: number; counted: number }>(
      `SELECT count(*)::int AS failed, count(*) FILTER (WHERE failed_runs > 0)::int AS counted FROM pitwall.sync_state WHERE last_run_id = $1`,
      [down.runId],
    );
    expect(discounted.rows[0]!.failed).toBeGreaterThan(0);
    expect(discounted.rows[0]!.counted).toBe(0);
    expect(await state()).toBe('2');

    // The charset refusal, a lasting kind, was set aside after two runs; the two passing kinds fail a third time.
    await syncOnce(db, sim, { env });
    expect(await states()).toEqual({ silent: '3 aside', 'half-body': '3 aside', 'utf-16': '0', klingon: '2 aside' });

    const aside = VICTIMS.filter((kind) => kind !== 'utf-16');
    const before = aside.map((kind) => hits(kind));
    const fourth = await syncOnce(db, sim, { env });
    expect(fourth.scopes.setAside).toBeGreaterThanOrEqual(aside.length);
    expect(aside.map((kind) => hits(kind))).toEqual(before);
  });
});
