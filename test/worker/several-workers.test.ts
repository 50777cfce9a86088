import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';

import { BEAT_MS } from '../../src/coordination/lease.js';
import { measureArrivalBunching } from '../helpers/arrival-bunching.js';
import { runCli, startCli, type CliResult, type RunningCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import {
  catchingUpFull,
  CLEAN_EXIT,
  countConnections,
  NO_SCHEDULES,
  overlappingRuns,
  ownersNow,
  stopAll,
  useWatcherPool,
  waitForCount,
} from './process.js';

const SITES = ['track-a', 'track-b', 'series-c'];
/** The cap every source keeps to, measured at the simulator per key. */
const MAX_RPS = 8;
/** Each worker's pool: small, so that a connection taken beside it would show. */
const POOL_SIZE = 4;

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
/** The worker processes of compose.scale.yaml: its replicas. */
const REPLICAS = Number(/^ {6}replicas: (\d+)$/m.exec(read('compose.scale.yaml'))?.[1]);

interface Run {
  run_id: number;
  source: string;
  job: string;
  trigger: string;
  status: string;
  pid: number;
  requests: number;
}

/** What the three workers did, watched while they ran and read once they stopped. */
interface Scenario {
  pids: number[];
  exits: Array<{ code: number | null; stderr: string }>;
  logs: string[];
  manual: CliResult;
  /** The most connections the workers had at once, sampled while no manual sync ran. */
  peakConnections: number;
  /** The OS pids the lock sessions seen named, each time a sample was taken. */
  lockSessions: number[][];
  /** Sources owned per worker pid, once every full was done and the shares had evened out. */
  evenedOut: Map<number, number>;
  runs: Run[];
  /** The arrivals a second at the simulator may count above a key's rate + 1, measured while they ran. */
  bunching: number;
}

/**
 * Three worker processes on one empty warehouse with three sources, as compose.scale.yaml runs
 * them. While their start-up catch-ups run each source's full, a manual sync of one source's live
 * job joins that source as a guest; once every full is done, the sources even out to one each.
 */
describe('three worker processes on one database, three sources, an empty warehouse', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 11, sites: 3 });
  const watcher = useWatcherPool(db);
  const sourcesEnv = useSourcesFile(SITES);
  let seen: Scenario;

  beforeAll(async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key), {
      ...NO_SCHEDULES,
      PITWALL_MAX_RPS: String(MAX_RPS),
      PITWALL_DB_POOL_SIZE: String(POOL_SIZE),
      PITWALL_LOG_LEVEL: 'info',
    });
    const bunching = measureArrivalBunching();
    const workers: RunningCli[] = Array.from({ length: REPLICAS }, () => startCli(['worker'], env));
    let manualRunning = false;
    let sampling = true;
    let peakConnections = 0;
    const lockSessions: number[][] = [];
    const sampler = (async () => {
      while (sampling) {
        const wasRunning = manualRunning;
        const sample = await countConnections(watcher);
        if (!wasRunning && !manualRunning) peakConnections = Math.max(peakConnections, sample.connections);
        lockSessions.push(sample.lockSessions.sort());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    let manual: CliResult | undefined;
    let evenedOut = new Map<number, number>();
    try {
      await waitForCount(watcher, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE source = 'track-a' AND job = 'full' AND requests > 0`, 1);
      manualRunning = true;
      manual = await runCli(['sync', '--job', 'live', '--source', 'track-a'], env);
      manualRunning = false;
      await waitForCount(watcher, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 3);
      // A worker gives up its idle sources above its share at its next beat, the others take them at theirs.
      // Two taking at once may both try the same free source: the one that lost takes the next at its next beat.
      const oneEach = (owners: Map<number, number>) => workers.every((w) => owners.get(w.child.pid!) === 1);
      const deadline = performance.now() + 4 * BEAT_MS;
      do {
        await new Promise((r) => setTimeout(r, 250));
        evenedOut = await ownersNow(watcher);
      } while (!oneEach(evenedOut) && performance.now() < deadline);
      // Long enough for any second full (a duplicate catch-up by a worker taking a source) to have started.
      await new Promise((r) => setTimeout(r, 3_000));
    } finally {
      sampling = false;
      await sampler;
      const exits = await stopAll(workers);
      bunching.stop();
      const logs = await Promise.all(workers.map(async (w) => (await w.exited).stderr));
      const { rows: runs } = await watcher.query<Run>(`SELECT run_id, source, job, trigger, status, pid, requests FROM pitwall.sync_runs ORDER BY run_id`);
      seen = { pids: workers.map((w) => w.child.pid!), exits, logs, manual: manual!, peakConnections, lockSessions, evenedOut, runs, bunching: bunching.allowance(MAX_RPS) };
    }
  });

  it('runs each source\'s full once, as a catch-up, and never one source\'s job twice at once', async () => {
    expect(REPLICAS).toBe(3);
    expect(seen.exits).toEqual(seen.pids.map(() => CLEAN_EXIT));
    const fulls = seen.runs.filter((r) => r.job === 'full');
    expect(fulls.map((r) => [r.source, r.trigger, r.status]).sort()).toEqual(SITES.map((s) => [s, 'catch-up', 'succeeded']).sort());
    expect(seen.runs.filter((r) => r.job !== 'full').map((r) => [r.source, r.job, r.trigger, r.status])).toEqual([['track-a', 'live', 'manual', 'succeeded']]);
    expect(seen.manual.code).toBe(0);
    expect(await overlappingRuns(watcher)).toEqual([]);
  });

  it('says "catching up: full" in the log of the worker that ran that source\'s full, and in no other', () => {
    const fulls = seen.runs.filter((r) => r.job === 'full');
    expect(seen.pids.map((pid, i) => ({ pid, sources: catchingUpFull(seen.logs[i]!).sort() }))).toEqual(
      seen.pids.map((pid) => ({ pid, sources: fulls.filter((r) => r.pid === pid).map((r) => r.source).sort() })),
    );
  });

  it('hands idle sources over until each worker owns one', () => {
    expect(Object.fromEntries(seen.evenedOut)).toEqual(Object.fromEntries(seen.pids.map((pid) => [pid, 1])));
  });

  it('keeps each worker to its pool and one lock session: at most 3 x (PITWALL_DB_POOL_SIZE + 1) connections', () => {
    expect(seen.peakConnections).toBeGreaterThan(REPLICAS);
    expect(seen.peakConnections).toBeLessThanOrEqual(REPLICAS * (POOL_SIZE + 1));
    // Once all three had started, each had exactly one lock session, and nobody else had one.
    const all = [...seen.pids].sort();
    const settled = seen.lockSessions.filter((s) => s.length >= REPLICAS);
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.filter((s) => JSON.stringify(s) !== JSON.stringify(all))).toEqual([]);
  });

  it('leaves every site\'s rows equal to its truth, the touring events held at the tracks shared in the analytics views', async () => {
    for (const [i, site] of sim.sites.entries()) {
      expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, site.key), SITES[i])).toEqual({});
    }
    // The series site's touring events are held at the tracks: one row each in the analytics
    // views, naming both sources, while mrp keeps each source's own row.
    const { rows } = await db.pool.query<{ events: number; ids: number; shared: number; results: number; result_keys: number }>(
      `SELECT (SELECT count(*)::int FROM analytics.events_calendar) AS events,
              (SELECT count(DISTINCT event_id)::int FROM mrp.events) AS ids,
              (SELECT count(*)::int FROM analytics.events_calendar WHERE cardinality(sources) = 2 AND 'series-c' = ANY (sources)) AS shared,
              (SELECT count(*)::int FROM analytics.event_results) AS results,
              (SELECT count(DISTINCT (event_id, class_id, race_number, row_index))::int FROM mrp.results) AS result_keys`,
    );
    const { events, ids, shared, results, result_keys: resultKeys } = rows[0]!;
    expect(shared).toBeGreaterThan(0);
    expect({ events, results }).toEqual({ events: ids, results: resultKeys });
  });

  it('keeps each key within its rate at the simulator, the manual sync beside its owner included', () => {
    const bySite = sim.requests().bySite;
    for (const [i, name] of SITES.entries()) {
      const sent = seen.runs.filter((r) => r.source === name).reduce((n, r) => n + r.requests, 0);
      expect({ name, requests: bySite[i + 1]?.requests }).toEqual({ name, requests: sent });
      // Evenly spaced at MAX_RPS, a one-second window holds MAX_RPS arrivals, one more at its edges,
      // and those this process's held-up event loop stamped together (test/helpers/arrival-bunching.ts).
      expect(bySite[i + 1]?.peakPerSecond ?? Infinity, name).toBeLessThanOrEqual(MAX_RPS + 1 + seen.bunching);
    }
  });
});

describe('compose.scale.yaml', () => {
  it('runs the worker service as three replicas without a host port, setting only variables pitwall reads', async () => {
    const text = read('compose.scale.yaml');
    expect(REPLICAS).toBe(3);
    expect([...text.matchAll(/^ {2}(\w+):$/gm)].map((m) => m[1])).toEqual(['worker']);
    // Three replicas cannot bind one host port.
    expect(text).toMatch(/^ {4}ports: !reset \[\]$/m);
    const { CONFIG_VARIABLES } = await import('../../src/config.js');
    const known = new Set(CONFIG_VARIABLES.map((v) => v.env));
    const vars = [...text.matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1]);
    expect(vars.length).toBeGreaterThan(0);
    expect(vars.filter((v) => !known.has(v!))).toEqual([]);
  });
});
