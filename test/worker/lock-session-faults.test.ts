import { describe, expect, it } from 'vitest';

import { BEAT_MS, LEASE_MS } from '../../src/coordination/lease.js';
import { startFaultProxy, type FaultKind } from '../helpers/fault-proxy.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { freePort } from '../helpers/ports.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { ARRIVAL_BUNCHING, healthz, isLockSession, MAX_RPS, startWorker, statusOf, until } from './faults.js';
import { CLEAN_EXIT, NO_SCHEDULES, overlappingRuns, ownersNow, stopAll, useWatcherPool, waitForCount } from './process.js';

const SITES = ['track-a', 'track-b', 'track-c', 'track-d'];

/**
 * Two workers on one warehouse and four sources; every connection of worker A goes through a TCP
 * fault proxy of the test's own. A's lock session is broken while the start-up fulls run (the
 * server's side closed and A's silent, both sides silent, or reset), and new lock sessions of A
 * hang until the test lifts the fault. Whatever the fault, A stops every run and request of its
 * sources before B may start one (no job of a source runs in two processes at once, each key
 * within its rate at the simulator), says so in one line, answers /healthz 503 while it holds no
 * session, and takes work again once it has a new one; the warehouse ends equal to the truth.
 */
describe.each<FaultKind>(['half-open', 'stall', 'reset'])('a worker whose lock session goes %s beside another worker', (kind) => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 31, sites: SITES.length, faults: { latencyMs: 20 } });
  const watcher = useWatcherPool(db);
  const sourcesEnv = useSourcesFile(SITES);
  const proxy = useResource('the fault proxy', () => startFaultProxy(db.url), (p) => p.close());
  const upstream = useResource('worker A\'s upstream proxy', () => startFaultProxy(sim.url), (p) => p.close());

  it('stops before the other may start, says so once, is unhealthy while it holds no session, and works again after', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key), { ...NO_SCHEDULES, PITWALL_MAX_RPS: String(MAX_RPS), PITWALL_LOG_LEVEL: 'info' });
    const port = await freePort();
    const a = startWorker({ ...env, DATABASE_URL: proxy.url(db.url), MRP_API_BASE_URL: upstream.url(sim.url), PITWALL_HTTP_PORT: String(port) });
    const b = startWorker(env);
    const workers = [a, b];
    let lossAt = 0;
    let noticedMs = 0;
    let sentAfterLoss = -1;
    let mine: string[] = [];
    try {
      // Both at work on their shares of the start-up fulls.
      await waitForCount(watcher, `SELECT count(DISTINCT pid)::int AS n FROM pitwall.sync_runs WHERE status = 'running' AND requests > 0`, 2);
      mine = [...(await watcher.query<{ source: string }>(`SELECT source FROM pitwall.sync_runs WHERE status = 'running' AND pid = $1`, [a.child.pid])).rows.map((r) => r.source)];
      expect(mine.length).toBeGreaterThan(0);
      const faultAt = Date.now();
      proxy.fault(kind, { which: isLockSession, sticky: true });
      // The loss, in one line, within the lease (a reset at once) and before anyone else could start.
      await until('A logs the loss', () => a.lines().some((l) => l.msg.startsWith('lost the lock session')), LEASE_MS + 10_000);
      lossAt = new Date(a.lines().find((l) => l.msg.startsWith('lost the lock session'))!.time as string | number).getTime();
      noticedMs = lossAt - faultAt;
      expect(Number.isFinite(lossAt)).toBe(true);
      const sentAtLoss = upstream.bytesFromClients();
      await until('A answers /healthz 503', async () => (await healthz(port)).status === 503, 10_000);
      expect((await healthz(port)).reason).toMatch(/no lock session/);
      // Its status page says so too, in the JSON and on the page.
      expect(await statusOf(port)).toMatchObject({ lock_session: 'lost' });
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain('This worker holds no lock session');
      // B takes A's sources and runs their fulls again.
      await waitForCount(watcher, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND pid = ${b.child.pid} AND source = ANY('{${mine.join(',')}}') AND requests > 0`, 1);
      // Cut off, A sent the upstream nothing more.
      sentAfterLoss = upstream.bytesFromClients() - sentAtLoss;
      proxy.fault('none');
      await until('A holds a session again', async () => (await healthz(port)).status === 200, 4 * BEAT_MS + LEASE_MS);
      expect(await statusOf(port)).toMatchObject({ lock_session: 'held' });
      await waitForCount(watcher, `SELECT count(DISTINCT source)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, SITES.length);
      // Idle again, the sources even out: A takes work again.
      await until('A owns sources again', async () => ((await ownersNow(watcher)).get(a.child.pid!) ?? 0) > 0, 6 * BEAT_MS);
    } finally {
      expect(await stopAll(workers)).toEqual(workers.map(() => CLEAN_EXIT));
    }
    expect(a.lines().filter((l) => l.msg.startsWith('lost the lock session'))).toHaveLength(1);
    expect(await overlappingRuns(watcher)).toEqual([]);
    // Nobody started a run of A's sources before A had stopped them.
    const { rows: taken } = await watcher.query<{ started: Date }>(`SELECT started_at AS started FROM pitwall.sync_runs WHERE pid = $1 AND source = ANY($2)`, [b.child.pid, mine]);
    expect(taken.filter((r) => r.started.getTime() <= lossAt)).toEqual([]);
    console.info(`lock session ${kind}: the loss noticed after ${noticedMs} ms; busiest second per key ${SITES.map((_, i) => sim.requests().bySite[i + 1]?.peakPerSecond).join(', ')} (cap ${MAX_RPS})`);
    expect(sentAfterLoss).toBe(0);
    for (const [i] of SITES.entries()) expect(sim.requests().bySite[i + 1]?.peakPerSecond ?? Infinity).toBeLessThanOrEqual(MAX_RPS + 1 + ARRIVAL_BUNCHING);
    const truthOf = await Promise.all(sim.sites.map((s) => fetchTruth(sim.url, s.key)));
    for (const [i, site] of SITES.entries()) expect(await diffAgainstTruth(watcher, truthOf[i]!, site)).toEqual({});
  }, 300_000);
});

