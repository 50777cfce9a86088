import { availableParallelism } from 'node:os';

import pLimit from 'p-limit';
import type pg from 'pg';

import { createSilentLogger } from '../src/log.js';
import { createWorld } from '../src/simulator/world/index.js';
import type { Scale } from '../src/simulator/world/types.js';
import { rowsWritten } from '../src/sync/counters.js';
import { runRebuild, type RebuildDeps } from '../src/sync/rebuild.js';
import { runSync, type RunSummary } from '../src/sync/run.js';

import type { SimulatorProcess } from './lib/child.js';
import { cpuSplit, type CpuSplit } from './lib/cpu.js';
import { minimumRequests } from './lib/min-requests.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { openSyncSetup } from './lib/sync-setup.js';
import { ratio } from './lib/timing.js';

export interface E2eFigures {
  scale: Scale;
  requests: number;
  minRequests: number;
  /** Requests the simulator saw for a path+query it had already answered in the run. */
  repeatedRequests: number;
  latencyMs: number;
  concurrency: number;
  wallMs: number;
  floorMs: number;
  wallToFloor: number;
  status: string;
  resultRows: number;
  /** CPU time of the sync, the simulator and PostgreSQL (null: not readable here) over the sync. */
  cpuMs: CpuSplit;
  /** That CPU time spread over every core: no schedule of the same work finishes sooner here. */
  cpuBoundMs: number | null;
  /** Rows the first sync inserted into every table. */
  rowsWritten: number;
  /**
   * pitwall's and PostgreSQL's CPU per CPU ms of the simulator, which renders the same world for
   * every version of pitwall: ratios a faster or busier machine moves much less than milliseconds.
   */
  cpuPerSimulator: { pitwall: number | null; postgres: number | null };
  /** Absolute CPU ms per 1,000 requests and per 100,000 rows written, to compare across machines and simulator versions. */
  cpuPer1000Requests: { pitwall: number; postgres: number | null };
  cpuPer100kRows: { pitwall: number; postgres: number | null };
}

export interface NoopFigures {
  rowsWritten: number;
  requests: number;
  wallMs: number;
  floorMs: number;
  wallToFloor: number;
  status: string;
  cpuMs: CpuSplit;
  cpuBoundMs: number | null;
  /**
   * The same requests by a bare fetch loop with the same concurrency that only reads the bodies:
   * what the HTTP stack and the simulator alone take, pitwall's own work left out.
   */
  bareFetchWallMs: number;
  bareFetchToFloor: number;
}

/**
 * `pitwall rebuild` of the same warehouse right after the syncs: every kept body parsed and
 * loaded again through the sync's load path, nothing sent upstream. The tables already hold what
 * the bodies give, so every row is compared and none is written: the CPU of re-deriving the
 * warehouse, without the upstream's latency or the simulator.
 */
export interface RebuildFigures {
  status: string;
  scopes: number;
  /** Rows the rebuild derived and compared (inserted + updated + unchanged, every table). */
  rows: number;
  rowsWritten: number;
  wallMs: number;
  cpuMs: { pitwall: number; postgres: number | null };
  cpuPer100kRows: { pitwall: number; postgres: number | null };
}

interface RequestLog {
  total: number;
  byPath: Record<string, number>;
}

async function simulatorRequests(sim: SimulatorProcess, reset: boolean): Promise<RequestLog> {
  const log = (await (await fetch(`${sim.url}/__simulator/requests`)).json()) as RequestLog;
  if (reset) await fetch(`${sim.url}/__simulator/requests/reset`, { method: 'POST' });
  return log;
}

/** Rows a run inserted, over every table. */
function rowsInserted(tables: RunSummary['tables']): number {
  return Object.values(tables).reduce((n, c) => n + (c?.inserted ?? 0), 0);
}

/** The first sync's CPU as ratios to the simulator's and as absolute rates (see E2eFigures). */
function cpuRates(cpu: CpuSplit, requests: number, rows: number): Pick<E2eFigures, 'rowsWritten' | 'cpuPerSimulator' | 'cpuPer1000Requests' | 'cpuPer100kRows'> {
  const per = (ms: number | null, over: number | null) => (ms === null || !over ? null : Math.round((100 * ms) / over) / 100);
  const rate = (ms: number | null, unit: number, count: number) => (ms === null || count === 0 ? null : Math.round((ms * unit) / count));
  return {
    rowsWritten: rows,
    cpuPerSimulator: { pitwall: per(cpu.pitwall, cpu.simulator), postgres: per(cpu.postgres, cpu.simulator) },
    cpuPer1000Requests: { pitwall: rate(cpu.pitwall, 1000, requests) ?? 0, postgres: rate(cpu.postgres, 1000, requests) },
    cpuPer100kRows: { pitwall: rate(cpu.pitwall, 100_000, rows) ?? 0, postgres: rate(cpu.postgres, 100_000, rows) },
  };
}

/** The CPU time of all three spread over every core of the machine; null when a part is unknown. */
function cpuBound(cpu: CpuSplit): number | null {
  if (cpu.simulator === null || cpu.postgres === null) return null;
  return Math.round((cpu.pitwall + cpu.simulator + cpu.postgres) / availableParallelism());
}

/** Requests every path+query of `paths` (from a request log) with `concurrency` in flight, reading each body. */
async function bareFetch(sim: SimulatorProcess, paths: string[], concurrency: number): Promise<number> {
  const limit = pLimit(concurrency);
  const started = performance.now();
  await Promise.all(
    paths.map((p) =>
      limit(async () => {
        const url = new URL(p, sim.url);
        url.searchParams.set('key', sim.key);
        const res = await fetch(url);
        await res.arrayBuffer();
      }),
    ),
  );
  const wallMs = Math.round(performance.now() - started);
  await simulatorRequests(sim, true);
  return wallMs;
}

/** A rebuild of the warehouse the syncs left (see RebuildFigures). */
async function rebuildOnce(pool: pg.Pool, config: RebuildDeps['config'], simulatorPid: number): Promise<RebuildFigures> {
  const cpu = await cpuSplit(simulatorPid, pool);
  const started = performance.now();
  const summary = await runRebuild({ pool, config, logger: createSilentLogger() });
  const wallMs = Math.round(performance.now() - started);
  const { pitwall, postgres } = await cpu();
  if (summary.status !== 'succeeded') throw new Error(`the benchmark's rebuild ${summary.status}: ${summary.error ?? 'no error recorded'}`);
  const rows = Object.values(summary.tables).reduce((n, c) => n + (c ? c.inserted + c.updated + c.unchanged : 0), 0);
  const per100k = (ms: number | null) => (ms === null || rows === 0 ? null : Math.round((ms * 100_000) / rows));
  return {
    status: summary.status,
    scopes: summary.scopes.loaded,
    rows,
    rowsWritten: rowsWritten(summary.tables),
    wallMs,
    cpuMs: { pitwall, postgres },
    cpuPer100kRows: { pitwall: per100k(pitwall) ?? 0, postgres: per100k(postgres) },
  };
}

/**
 * Two full syncs of one world, as `pitwall sync` runs them (loadConfig, a pool of concurrency +
 * 2 connections), against a simulator in its own process that answers every request after
 * `latencyMs`: the first into an empty database, the second right after, with nothing changed
 * upstream. Their floor is `requests × latency / concurrency`: the time the requests alone
 * take when `concurrency` of them are always in flight. Then a rebuild of what they loaded.
 */
export async function benchEndToEnd(
  server: string,
  opts: { scale: Scale; latencyMs: number; concurrency: number },
): Promise<{ e2e: E2eFigures; noop: NoopFigures; rebuild: RebuildFigures }> {
  const minimum = minimumRequests(createWorld({ seed: BENCH_SEED, scale: opts.scale }).truth());
  const { sim, pool, config, close } = await openSyncSetup(server, 'e2e', opts);
  try {
    const sync = async () => {
      const cpu = await cpuSplit(sim.pid, pool);
      const started = performance.now();
      const summary = await runSync({ pool, config, logger: createSilentLogger() });
      const wallMs = Math.round(performance.now() - started);
      const cpuMs = await cpu();
      // A sync that did not finish measured something else: the bench fails rather than report it.
      if (summary.status !== 'succeeded') throw new Error(`the benchmark's sync ${summary.status}: ${summary.error ?? 'no error recorded'}`);
      const log = await simulatorRequests(sim, true);
      const floorMs = Math.round((summary.requests * opts.latencyMs) / opts.concurrency);
      return { summary, wallMs, floorMs, log, cpuMs, cpuBoundMs: cpuBound(cpuMs) };
    };

    const first = await sync();
    const second = await sync();
    const bareFetchWallMs = await bareFetch(sim, Object.keys(second.log.byPath), opts.concurrency);
    const rebuild = await rebuildOnce(pool, config, sim.pid);
    return {
      e2e: {
        scale: opts.scale,
        requests: first.summary.requests,
        minRequests: minimum.total,
        repeatedRequests: first.log.total - Object.keys(first.log.byPath).length,
        latencyMs: opts.latencyMs,
        concurrency: opts.concurrency,
        wallMs: first.wallMs,
        floorMs: first.floorMs,
        wallToFloor: ratio(first.wallMs, first.floorMs),
        status: first.summary.status,
        resultRows: first.summary.tables.results?.inserted ?? 0,
        cpuMs: first.cpuMs,
        cpuBoundMs: first.cpuBoundMs,
        ...cpuRates(first.cpuMs, first.summary.requests, rowsInserted(first.summary.tables)),
      },
      noop: {
        rowsWritten: rowsWritten(second.summary.tables),
        requests: second.summary.requests,
        wallMs: second.wallMs,
        floorMs: second.floorMs,
        wallToFloor: ratio(second.wallMs, second.floorMs),
        status: second.summary.status,
        cpuMs: second.cpuMs,
        cpuBoundMs: second.cpuBoundMs,
        bareFetchWallMs,
        bareFetchToFloor: ratio(bareFetchWallMs, second.floorMs),
      },
      rebuild,
    };
  } finally {
    await close();
  }
}
