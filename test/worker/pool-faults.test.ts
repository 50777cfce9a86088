import { describe, expect, it } from 'vitest';

import { STOP_GRACE_MS } from '../../src/worker/worker-runs.js';
import { startFaultProxy, type FaultKind } from '../helpers/fault-proxy.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { freePort } from '../helpers/ports.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { healthz, isLockSession, MAX_RPS, startWorker, until } from './faults.js';
import { CLEAN_EXIT, NO_SCHEDULES, overlappingRuns, ownersNow, stopAll, useWatcherPool, waitForCount } from './process.js';

/**
 * A worker whose every connection stops answering (a partition between it and the database) is
 * told to stop: it drains for PITWALL_SHUTDOWN_TIMEOUT_MS, cancels, waits STOP_GRACE_MS more for
 * its runs to record their outcome, and exits, saying in one line what could not be recorded.
 */
describe('a worker told to stop while the database does not answer', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 32, faults: { latencyMs: 20 } });
  const watcher = useWatcherPool(db);
  const proxy = useResource('the fault proxy', () => startFaultProxy(db.url), (p) => p.close());

  it('exits 0 within the drain timeout and the grace after it, with one line about its runs', async () => {
    const shutdownMs = 2_000;
    const worker = startWorker({
      DATABASE_URL: proxy.url(db.url),
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '8',
      PITWALL_LOG_LEVEL: 'info',
      PITWALL_SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
      ...NO_SCHEDULES,
    });
    await waitForCount(watcher, `SELECT max(requests)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`, 10);
    proxy.fault('stall', { sticky: true });
    const sent = performance.now();
    worker.child.kill('SIGTERM');
    const r = await worker.exited;
    const tookMs = r.exitedAt - sent;
    proxy.fault('none');
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual(CLEAN_EXIT);
    const said = worker.lines().map((l) => l.msg);
    expect(said.filter((m) => / run\(s\) interrupted by the stop/.test(m))).toHaveLength(1);
    expect(said).toContain('worker stopped');
    // The bound is the worker's own arithmetic (STOP_GRACE_MS past the drain), read off its own
    // clock: from its line on starting to stop to its last line. Starting the process, delivering
    // the signal and exiting are the machine's, bounded here only by a hang guard.
    const lines = worker.lines();
    const at = (l: (typeof lines)[number]) => new Date(l.time as string | number).getTime();
    const stopping = lines.find((l) => l.msg.startsWith('worker stopping'));
    const stopped = lines.find((l) => l.msg === 'worker stopped');
    expect(stopping && stopped).toBeTruthy();
    const stopMs = at(stopped!) - at(stopping!);
    console.info(`a worker stopped with the database partitioned away took ${stopMs} ms by its own clock, ${Math.round(tookMs)} ms from the signal to its exit (drain ${shutdownMs} ms + grace ${STOP_GRACE_MS} ms)`);
    // Its timers may fire late on a busy machine; a second covers that, not a wait on the database.
    expect(stopMs).toBeLessThan(shutdownMs + STOP_GRACE_MS + 1_000);
    expect(tookMs).toBeLessThan(60_000);
  });
});

/**
 * A worker whose pooled connections go half-open, stall or are reset (new ones too) while its lock
 * session stays whole: its lease holds (nobody else may take its sources), its transactions end at
 * PITWALL_DB_DEADLINE_MS instead of waiting for TCP, `/healthz` says the database is unreachable,
 * and once the links are back its catch-up runs the full again at once: the warehouse's failure is
 * no reason to back off.
 */
describe.each<FaultKind>(['half-open', 'stall', 'reset'])('a worker whose pooled connections go %s', (kind) => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 35, faults: { latencyMs: 20 } });
  const watcher = useWatcherPool(db);
  const proxy = useResource('the fault proxy', () => startFaultProxy(db.url), (p) => p.close());

  it('keeps its sources, says the database is unreachable, and runs the cut-off full again once it answers', async () => {
    const port = await freePort();
    const worker = startWorker({
      DATABASE_URL: proxy.url(db.url),
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: String(MAX_RPS),
      PITWALL_LOG_LEVEL: 'info',
      PITWALL_HTTP_PORT: String(port),
      PITWALL_DB_DEADLINE_MS: '3000',
      ...NO_SCHEDULES,
    });
    try {
      await waitForCount(watcher, `SELECT max(requests)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`, 10);
      proxy.fault(kind, { which: (c) => !isLockSession(c), sticky: true });
      await until('/healthz says the database is unreachable', async () => /database unreachable/.test((await healthz(port)).reason ?? ''), 30_000);
      // Its lease holds: it still owns its source, and nobody else could take it.
      expect((await ownersNow(watcher)).get(worker.child.pid!)).toBe(1);
      await until('the run has ended', () => worker.lines().some((l) => l.msg === 'run failed' || l.msg.startsWith('catch-up waits for the database')), 60_000);
      proxy.fault('none');
      await waitForCount(watcher, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
      await until('/healthz answers 200 again', async () => (await healthz(port)).status === 200, 10_000);
    } finally {
      proxy.fault('none');
      expect(await stopAll([worker])).toEqual([CLEAN_EXIT]);
    }
    const { rows } = await watcher.query<{ status: string }>(`SELECT status FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`);
    expect(rows.map((r) => r.status)).toEqual([expect.stringMatching(/^(failed|abandoned)$/), 'succeeded']);
    expect(worker.lines().filter((l) => /backing off/.test(l.msg))).toEqual([]);
    expect(await overlappingRuns(watcher)).toEqual([]);
    expect(await diffAgainstTruth(watcher, await fetchTruth(sim.url, sim.key))).toEqual({});
  });
});
