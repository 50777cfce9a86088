import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSimulator } from '../src/simulator/server.js';
import type { Scale } from '../src/simulator/world/types.js';

import { peakRssBytes } from './lib/child.js';
import { createBenchDatabase } from './lib/database.js';
import { minimumRequests } from './lib/min-requests.js';
import { nodeOptionsEnv, withPitwall, type Pitwall, type Runtime } from './lib/pitwall-runtime.js';
import { BENCH_QUERIES, countStatements, type StatementCounts } from './lib/statements.js';

/** One set-up of the sites section: N worker processes loading every site's full sync. */
export interface SitesRun {
  workers: number;
  /** From the workers' start to the last site's full sync succeeding (null in a steady run, which stops first). */
  makespanMs: number | null;
  /**
   * The least a makespan can be: the slowest site's minimum requests at its key's rate, or all
   * sites' minimum requests at the global cap, whichever is longer.
   */
  floorMs: number;
  /**
   * When the upstream saw its first request, and when it saw the last, from the workers' start
   * (sampled every 250 ms): what the workers spend before the first and after the last request is
   * start-up and recording, not pace.
   */
  upstreamSpan?: { firstMs: number; lastMs: number };
  /** A steady run's requests per second at the upstream, over its window after the warm-up. */
  steady?: { windowMs: number; requestsPerSecond: number };
  /** Per source: requests its full made over the fewest its site needs (1.00 = each scope once). */
  requestsToMinimum: { min: number; max: number };
  /** The busiest second of any one key at the simulator, against the cap. */
  peakPerSecond: number;
  peakRssMbPerWorker: number[];
  /** Most connections to the warehouse's database at once, sampled every 250 ms. */
  peakConnections: number;
  /**
   * With several workers, the manual `pitwall sync` of the first site run beside them: exit 0
   * (its full ran, no worker's was going), or 3 (a worker's full of the site was going: skipped).
   */
  manualSync?: { exitCode: number | null };
  /** Requests the upstream answered, all sites together. */
  upstreamRequests: number;
  /** With `statements`: what the workers asked of the database (statements.ts). */
  statements?: StatementCounts;
}

export interface SitesFigures {
  sites: number;
  scale: Scale;
  maxRps: number;
  workerJobs: number;
  /** PITWALL_GLOBAL_MAX_RPS; 0 for none. */
  globalMaxRps: number;
  /** How the workers ran: compiled as the image runs them (`dist`, with its NODE_OPTIONS), or through tsx. */
  runtime: Runtime;
  nodeOptions: string;
  runs: SitesRun[];
}

const NEVER = '0 0 1 1 *';

/** When the manual sync beside several workers starts: once they have taken their sources. */
const MANUAL_SYNC_AFTER_MS = 10_000;

/** How long a steady run lets the workers start, take their sources and get their runs going before it counts. */
export const STEADY_WARMUP_MS = 60_000;

async function poll<T>(read: () => Promise<T | null>, everyMs: number, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (performance.now() > deadline) throw new Error('sites bench: timed out waiting for the full syncs');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('close', () => resolve())));

export interface SitesOptions {
  sites: number;
  scale: Scale;
  maxRps: number;
  workerJobs: number;
  workerCounts: readonly number[];
  /** PITWALL_GLOBAL_MAX_RPS, the cap on all keys together; 0 (none) by default. */
  globalMaxRps?: number;
  /** Count the workers' statements (`server` must load pg_stat_statements). */
  statements?: boolean;
  /** `dist`: the workers run compiled, with the image's NODE_OPTIONS, as deployed; `tsx`: as a checkout runs them. */
  runtime: Runtime;
  /**
   * Instead of waiting for every full: the requests per second the upstream sees over this
   * window, once STEADY_WARMUP_MS have passed (the workers have taken their sources and their
   * runs are going), then stop.
   */
  steadyMs?: number;
}

/**
 * `--only sites`: `sites` simulated sites of one scale, each a source of one warehouse on
 * `server`, loaded by 1 and then by 3 `pitwall worker` processes started together on an empty
 * warehouse at the default polite rate. Each run's figures: how long until every site's full
 * (the start-up catch-up) has succeeded, requests per source against its site's minimum, the
 * busiest second of any key, each worker's peak RSS and the database connections in use.
 */
export function benchSites(server: string, opts: SitesOptions): Promise<SitesFigures> {
  return withPitwall(opts.runtime, (pitwall) => sitesRuns(server, opts, pitwall));
}

async function sitesRuns(server: string, opts: SitesOptions, { command, nodeOptions }: Pitwall): Promise<SitesFigures> {
  const runs: SitesRun[] = [];
  for (const workers of opts.workerCounts) {
    const sim = await startSimulator({ scale: opts.scale, seed: 31, sites: opts.sites });
    const db = await createBenchDatabase(server, 'sites', 2);
    const dir = mkdtempSync(join(tmpdir(), 'pitwall-bench-sites-'));
    const children: ChildProcess[] = [];
    try {
      const names = sim.sites.map((_, i) => `site-${i + 1}`);
      writeFileSync(join(dir, 'sources.json'), JSON.stringify({ sources: names.map((name, i) => ({ name, keyEnv: `SITE_KEY_${i + 1}` })) }));
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: db.url,
        MRP_API_BASE_URL: sim.url,
        PITWALL_SOURCES: join(dir, 'sources.json'),
        PITWALL_MAX_RPS: String(opts.maxRps),
        // What is measured is how the workers share the sites, each at its key's rate: the global
        // cap (4 x PITWALL_MAX_RPS unless set) would hold three workers to one worker's rate.
        PITWALL_GLOBAL_MAX_RPS: String(opts.globalMaxRps ?? 0),
        PITWALL_WORKER_JOBS: String(opts.workerJobs),
        PITWALL_CRON_LIVE: NEVER,
        PITWALL_CRON_SEASON: NEVER,
        PITWALL_CRON_FULL: NEVER,
        PITWALL_LOG_LEVEL: 'warn',
        ...nodeOptionsEnv(nodeOptions),
        ...Object.fromEntries(sim.sites.map((s, i) => [`SITE_KEY_${i + 1}`, s.key])),
      };
      const started = performance.now();
      for (let i = 0; i < workers; i++) {
        children.push(spawn(process.execPath, command(['worker']), { env, stdio: ['ignore', 'ignore', 'inherit'] }));
      }
      // Beside several workers, a person's manual sync of one source, while the workers run it:
      // its connections count with theirs, and it must never run the workers' job at once.
      const manual =
        workers > 1
          ? new Promise<number | null>((resolve) => {
              setTimeout(() => {
                const sync = spawn(process.execPath, command(['sync', '--source', names[0]!]), { env, stdio: ['ignore', 'ignore', 'ignore'] });
                children.push(sync);
                sync.once('close', (code) => resolve(code));
              }, MANUAL_SYNC_AFTER_MS).unref();
            })
          : null;
      let peakConnections = 0;
      const dbName = new URL(db.url).pathname.slice(1);
      const steadyMs = opts.steadyMs;
      let windowStart: { at: number; requests: number } | undefined;
      let span: { firstMs?: number; lastMs?: number; total: number } = { total: 0 };
      let steady: SitesRun['steady'];
      const ended = await poll(
        async () => {
          const { rows: conns } = await db.pool.query<{ n: number }>(BENCH_QUERIES.connections, [dbName]);
          // The bench's own pool holds one of them.
          peakConnections = Math.max(peakConnections, (conns[0]?.n ?? 1) - 1);
          const now = performance.now();
          // One snapshot per look: it copies the count of every path seen, in this process, which serves the upstream.
          const total = sim.requests().total;
          if (total > span.total) span = { firstMs: span.firstMs ?? now - started, lastMs: now - started, total };
          if (steadyMs !== undefined) {
            if (!windowStart && now - started >= STEADY_WARMUP_MS) windowStart = { at: now, requests: total };
            if (windowStart && now - windowStart.at >= steadyMs) {
              steady = { windowMs: Math.round(now - windowStart.at), requestsPerSecond: Math.round(((total - windowStart.requests) / (now - windowStart.at)) * 10_000) / 10 };
              return now;
            }
          }
          const { rows } = await db.pool.query<{ n: number }>(BENCH_QUERIES.fullsDone);
          return (rows[0]?.n ?? 0) >= opts.sites ? now : null;
        },
        250,
        60 * 60_000,
      );
      const makespanMs = steady ? null : ended - started;
      const manualSync = manual ? { exitCode: await manual } : undefined;
      // The workers are the first children; the manual sync, when there is one, is not a worker.
      const peakRssMbPerWorker = children.slice(0, workers).map((c) => Math.round((peakRssBytes(c.pid!) ?? 0) / 1048576));
      const { rows } = await db.pool.query<{ source: string; requests: number }>(BENCH_QUERIES.requestsBySource);
      const minimums = sim.sites.map((site) => minimumRequests(site.world.truth()).total);
      const ratios = sim.sites.map((_, i) => (rows.find((r) => r.source === names[i])?.requests ?? 0) / minimums[i]!);
      const total = minimums.reduce((a, b) => a + b, 0);
      const floorMs = Math.round(1000 * Math.max(Math.max(...minimums) / opts.maxRps, opts.globalMaxRps ? total / opts.globalMaxRps : 0));
      const log = sim.requests();
      const bySite = log.bySite;
      runs.push({
        workers,
        makespanMs: makespanMs === null ? null : Math.round(makespanMs),
        floorMs,
        ...(span.firstMs !== undefined && span.lastMs !== undefined ? { upstreamSpan: { firstMs: Math.round(span.firstMs), lastMs: Math.round(span.lastMs) } } : {}),
        ...(steady ? { steady } : {}),
        requestsToMinimum: { min: Math.min(...ratios), max: Math.max(...ratios) },
        peakPerSecond: Math.max(...sim.sites.map((_, i) => bySite[i + 1]?.peakPerSecond ?? 0)),
        peakRssMbPerWorker,
        peakConnections,
        ...(manualSync ? { manualSync } : {}),
        upstreamRequests: log.total,
        ...(opts.statements ? { statements: await countStatements(db.pool, log.total) } : {}),
      });
    } finally {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map(exited));
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
      await sim.close();
    }
  }
  const { runtime } = opts;
  return { sites: opts.sites, scale: opts.scale, maxRps: opts.maxRps, workerJobs: opts.workerJobs, globalMaxRps: opts.globalMaxRps ?? 0, runtime, nodeOptions, runs };
}

