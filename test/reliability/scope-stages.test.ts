import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Endpoint } from '../../src/sync/endpoints.js';
import { endpoint, ROOTS, type EndpointName } from '../../src/sync/endpoints.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { diffOutsideVictims, startHostileUpstream, type HostileUpstream, type Hostility } from '../helpers/hostile-upstream.js';
import { syncOnce } from '../helpers/sync.js';
import { fetchTruth, type Truth } from '../helpers/warehouse.js';

/**
 * One scope, one failure: one run in which each stage of a visit fails for one scope of its own,
 * and every other scope loads. The upstream's stages fail through a hostile upstream; extraction
 * through a stand-in declaration of one endpoint whose extract throws (pitwall's own bug, which no
 * body can provoke); loading through a real trigger that refuses one event's rows.
 */
type Stage = 'request' | 'receive' | 'decode' | 'parse' | 'check' | 'extract' | 'load';
const CASES: ReadonlyArray<{ ep: EndpointName; stage: Stage; kind: string; how: Hostility | 'stand-in' | 'trigger' }> = [
  { ep: 'results', stage: 'request', kind: 'http 302', how: 'redirect' },
  { ep: 'lineups', stage: 'receive', kind: 'too-large', how: 'whitespace' },
  { ep: 'entry_list', stage: 'decode', kind: 'decode', how: 'broken-gzip' },
  { ep: 'driver_passes', stage: 'parse', kind: 'not-json', how: 'not-json' },
  { ep: 'lineups', stage: 'check', kind: 'envelope', how: 'not-envelope' },
  { ep: 'results', stage: 'check', kind: 'list-key', how: 'no-list' },
  { ep: 'results', stage: 'extract', kind: 'extract', how: 'stand-in' },
  { ep: 'entry_list', stage: 'load', kind: 'load 22023', how: 'trigger' },
];

describe.each(BACKENDS)('a failure in any stage of one visit (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 11 });
  let truth: Truth;
  let upstream: HostileUpstream;
  let victims: Array<(typeof CASES)[number] & { eventId: number }>;

  beforeAll(async () => {
    truth = await fetchTruth(sim.url);
    const events = [...new Set(truth.results.map((r) => Number(r.event_id)))].sort((a, b) => a - b);
    victims = CASES.map((c, i) => ({ ...c, eventId: events[i * 2]! }));
    const hostile = victims.flatMap((v) => (v.how === 'stand-in' || v.how === 'trigger' ? [] : [[`${endpoint(v.ep).path}?EventId=${v.eventId}`, v.how] as const]));
    upstream = await startHostileUpstream(sim.url, new Map(hostile));
    const load = victims.find((v) => v.how === 'trigger')!;
    await db.pool.query(`
      CREATE FUNCTION refuse_for_the_test() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test' USING ERRCODE = '22023'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON mrp.${load.ep} FOR EACH ROW WHEN (NEW.event_id = ${load.eventId}) EXECUTE FUNCTION refuse_for_the_test();`);
  });
  afterAll(() => upstream.close());

  it('records each on its own scope with its stage, and loads every other scope', async () => {
    const extract = victims.find((v) => v.how === 'stand-in')!;
    const real = endpoint(extract.ep);
    const broken: Endpoint = {
      ...real,
      extract: () => {
        throw new TypeError('a bug in extraction');
      },
    };
    // Listed first, the stand-in's visit is the walk's only one of that request.
    const plan = { roots: [{ endpoint: broken, params: { EventId: String(extract.eventId) } }, ...ROOTS.map((e) => ({ endpoint: e, params: {} }))] };
    const summary = await syncOnce(db, sim, {
      plan,
      env: { MRP_API_BASE_URL: upstream.url, PITWALL_MAX_BODY_BYTES: String(4 * 1024 * 1024), PITWALL_RETRY_BASE_MS: '5', PITWALL_MAX_ATTEMPTS: '2' },
    });
    expect(summary).toMatchObject({ status: 'failed', scopes: { failed: victims.length, invalid: 0 } });
    const { rows } = await db.pool.query<{ endpoint: string; params: string; failure_stage: string; failure_kind: string; last_error: string }>(
      `SELECT endpoint, params, failure_stage, failure_kind, last_error FROM pitwall.sync_state WHERE status = 'error'`,
    );
    const recorded = rows.map((r) => ({ ep: r.endpoint, params: r.params, stage: r.failure_stage, kind: r.failure_kind })).sort((a, b) => a.params.localeCompare(b.params));
    const expected = victims.map((v) => ({ ep: v.ep, params: `EventId=${v.eventId}`, stage: v.stage, kind: v.kind })).sort((a, b) => a.params.localeCompare(b.params));
    expect(recorded).toEqual(expected);
    for (const r of rows) expect(r.last_error).toMatch(new RegExp(`^${r.endpoint}: ${r.failure_stage}: .*${endpoint(r.endpoint as EndpointName).path.replaceAll('/', '\\/')}\\?${r.params}`));
    expect(await diffOutsideVictims(db.pool, truth, victims)).toEqual({});
  });
});
