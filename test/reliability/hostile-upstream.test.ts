import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { endpoint, type EndpointName } from '../../src/sync/endpoints.js';
import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { diffOutsideVictims, startHostileUpstream, type HostileUpstream, type Hostility } from '../helpers/hostile-upstream.js';
import { diffAgainstTruth, fetchTruth, type Truth } from '../helpers/warehouse.js';

/**
 * A whole sync, as a user runs it (the CLI, the default limits), through an upstream that answers
 * a handful of scopes with hostile bodies, each the same way on every request, and every other
 * scope normally (docs/reliability.md, "A broken or hostile upstream").
 */

/**
 * The hostile scopes, by endpoint and what they send (an event each). The bombs and the
 * oversized bodies come twice, so that two are in flight at once: the memory bound is about
 * several hostile bodies together.
 */
const HOSTILE: ReadonlyArray<[EndpointName, Hostility]> = [
  ['results', 'gzip-bomb'],
  ['results', 'gzip-bomb'],
  ['lineups', 'whitespace'],
  ['lineups', 'whitespace'],
  ['entry_list', 'trickle'],
  ['driver_passes', 'deep'],
  ['results', 'redirect'],
];

/** The failure kind each hostility is recorded as (docs/reliability.md). */
const RECORDED_KIND: Partial<Record<Hostility, string>> = {
  'gzip-bomb': 'too-large',
  whitespace: 'too-large',
  trickle: 'slow-body',
  deep: 'too-deep',
  redirect: 'http 302',
};

/** `pitwall sync --json` as a process, with its peak RSS (VmHWM, read until it exits). */
async function cliSync(env: Record<string, string>, args: string[] = []) {
  const run = startCli(['sync', '--json', ...args], env, 240_000);
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.child.pid}/status`, 'utf8'));
      peakKb = Math.max(peakKb, Number(hwm?.[1] ?? 0));
    } catch {
      // Exited between two polls.
    }
  }, 50);
  const result = await run.exited;
  clearInterval(poll);
  const summary = JSON.parse(result.stdout) as { status: string; scopes: Record<string, number>; durationMs: number };
  return { ...result, summary, peakMb: peakKb / 1024 };
}

describe('a sync through a hostile upstream', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5 });
  let truth: Truth;
  let upstream: HostileUpstream;
  /** Per hostile scope: its endpoint, its event, what it sends. */
  let victims: Array<{ ep: EndpointName; eventId: number; kind: Hostility }>;
  const env = () => ({
    MRP_API_BASE_URL: upstream.url,
    MRP_API_KEY: sim.key,
    DATABASE_URL: db.url,
    PITWALL_MAX_RPS: '0',
    // The trickle's cost is two of these: a setting bounds it.
    PITWALL_REQUEST_TIMEOUT_MS: '3000',
    PITWALL_RETRY_BASE_MS: '10',
    PITWALL_LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    truth = await fetchTruth(sim.url);
    const events = [...new Set(truth.results.map((r) => Number(r.event_id)))].sort((a, b) => a - b);
    victims = HOSTILE.map(([ep, kind], i) => ({ ep, kind, eventId: events[i * 2]! }));
    const scopes = new Map(victims.map((v) => [`${endpoint(v.ep).path}?EventId=${v.eventId}`, v.kind] as const));
    upstream = await startHostileUpstream(sim.url, scopes);
  });
  afterAll(() => upstream.close());

  it('fails only the hostile scopes, each in one line, within 400 MB; sets them aside after two runs; a retry once mended loads the truth', async () => {
    const first = await cliSync(env());
    expect(first.summary).toMatchObject({ status: 'failed', scopes: { failed: victims.length, invalid: 0 } });
    expect(first.peakMb).toBeLessThan(400);
    expect(await diffOutsideVictims(db.pool, truth, victims)).toEqual({});

    const failing = await db.pool.query<{ endpoint: string; params: string; last_error: string; failure_kind: string }>(
      `SELECT endpoint, params, last_error, failure_kind FROM pitwall.sync_state WHERE status = 'error' ORDER BY endpoint, params`,
    );
    expect(failing.rows.map((r) => `${r.endpoint}?${r.params}`).sort()).toEqual(victims.map((v) => `${v.ep}?EventId=${v.eventId}`).sort());
    for (const row of failing.rows) {
      const shown = `GET ${upstream.url}${endpoint(row.endpoint as EndpointName).path}?${row.params}`;
      expect(row.last_error.startsWith(`${row.endpoint}: `)).toBe(true);
      expect(row.last_error).toContain(shown);
      expect(row.last_error).not.toMatch(/\n|key=/);
    }
    const recorded = failing.rows.map((r) => `${r.endpoint}?${r.params}: ${r.failure_kind}`).sort();
    expect(recorded).toEqual(victims.map((v) => `${v.ep}?EventId=${v.eventId}: ${RECORDED_KIND[v.kind]}`).sort());

    const second = await cliSync(env());
    expect(second.summary).toMatchObject({ status: 'failed', scopes: { failed: victims.length } });
    expect(second.peakMb).toBeLessThan(400);
    const aside = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE set_aside_until > now() + interval '23 hours'`);
    expect(aside.rows[0].n).toBe(victims.length);

    // From the third run on, no request goes to a set-aside scope.
    const hitsBefore = [...upstream.hits.values()].reduce((a, b) => a + b, 0);
    const third = await cliSync(env());
    expect(third.summary).toMatchObject({ status: 'succeeded', scopes: { failed: 0, setAside: victims.length } });
    expect([...upstream.hits.values()].reduce((a, b) => a + b, 0)).toBe(hitsBefore);
    expect(third.summary.durationMs).toBeLessThan(first.summary.durationMs);

    upstream.setHostile(false);
    const mended = await cliSync(env(), ['--retry-set-aside']);
    expect(mended.summary).toMatchObject({ status: 'succeeded', scopes: { failed: 0, setAside: 0 } });
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
    const cleared = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE set_aside_until IS NOT NULL OR failed_runs > 0`);
    expect(cleared.rows[0].n).toBe(0);
  });
});
