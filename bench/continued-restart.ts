import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import type pg from 'pg';

import { loadConfig } from '../src/config.js';
import { openWarehouse, type Warehouse } from '../src/db/open-warehouse.js';
import { restartEmbeddedServer, stopEmbeddedServer } from '../src/embedded/server.js';
import { createSilentLogger } from '../src/log.js';
import type { Scale } from '../src/simulator/world/types.js';
import { startCli, type RunningCli } from '../test/helpers/cli.js';
import { warehouseTempDir } from '../test/helpers/temp-dir.js';

import { startSimulatorProcess } from './lib/child.js';
import { BENCH_SEED } from './lib/result-rows.js';
import { simulatorTotal, untilRequests } from './lib/simulator-requests.js';

/** The ownership issue's bound: the run a restart cut off is going again this soon after the server answers. */
export const RESUME_BOUND_MS = 30_000;

/** A schedule that never fires in a bench run: the worker's only run is its start-up catch-up full. */
const NEVER = '0 0 1 1 *';

/** How long the worker may take at most, start to stop: a hang guard (startCli kills it after), not a budget. */
const HANG_MS = 30 * 60_000;

export interface RestartedFigures {
  scale: Scale;
  stop: 'restart';
  /** The share of the minimum's requests the simulator had counted when the restart was begun. */
  at: number;
  minRequests: number;
  /** Every request of the worker, cut run and continuation, as the simulator counted them. */
  requests: number;
  ratio: number;
  /** Whether the run that succeeded continued the one the restart cut off. */
  continued: boolean;
  /** From the server answering again to the continuation's start, both on the server's clock (null: nothing continued the cut run). */
  resumedMs: number | null;
  resumeBoundMs: number;
  target: number;
}

/** The full a worker has running now (the one a restart will cut off). */
async function runningFull(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ id: number }>(`SELECT run_id::int AS id FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running' ORDER BY run_id DESC LIMIT 1`);
  return rows[0]?.id ?? null;
}

/** Polls until a full has succeeded; fails when the worker exits first. Its `continues_run_id` says whether it continued an earlier part. */
async function untilSucceeded(pool: pg.Pool, worker: RunningCli): Promise<{ continues: number | null }> {
  let exited = false;
  const gone = () => (exited = true);
  void worker.exited.then(gone, gone);
  for (;;) {
    const { rows } = await pool.query<{ continues: number | null }>(
      `SELECT continues_run_id::int AS continues FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded' ORDER BY run_id DESC LIMIT 1`,
    );
    if (rows[0]) return rows[0];
    if (exited) {
      const end = await worker.exited;
      throw new Error(`the worker exited with ${end.code ?? end.signal} before its full succeeded: ${end.stderr.slice(-2000)}`);
    }
    await sleep(100);
  }
}

/**
 * A `pitwall worker` (a real process) on an embedded warehouse, its only run the start-up full of
 * an empty one, against the simulator in a process of its own; once the simulator has counted
 * `at` of the minimum's requests, the embedded server is restarted (pg_ctl restart -m fast: every
 * session ends, as in a managed database's minor update). The worker stays up and continues the
 * cut run: every request it made over the minimum, and how soon after the server answered the
 * continuation began. The embedded server is the bench's own, so the machine's server is never
 * restarted; the bench holds it open (its polling pool) across the restart, as a BI client would.
 */
export async function benchRestartedWorker(
  c: { scale: Scale; at: number; target: number },
  minRequests: number,
  opts: { concurrency: number; latencyMs: number },
): Promise<RestartedFigures> {
  const sim = await startSimulatorProcess(c.scale, BENCH_SEED, opts.latencyMs);
  const dir = warehouseTempDir('pitwall-bench-restart');
  let warehouse: Warehouse | undefined;
  let worker: RunningCli | undefined;
  try {
    warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'bench', poolMax: 2 });
    const { pool } = warehouse;
    worker = startCli(
      ['worker'],
      {
        MRP_API_BASE_URL: sim.url,
        MRP_API_KEY: sim.key,
        PITWALL_DATA_DIR: dir,
        PITWALL_CRON_LIVE: NEVER,
        PITWALL_CRON_SEASON: NEVER,
        PITWALL_CRON_FULL: NEVER,
        PITWALL_MAX_RPS: '0',
        PITWALL_CONCURRENCY: String(opts.concurrency),
        PITWALL_LOG_LEVEL: 'warn',
      },
      HANG_MS,
    );
    let going = true;
    const gone = () => (going = false);
    void worker.exited.then(gone, gone);
    await untilRequests(sim, c.at * minRequests, () => going);
    const cut = await runningFull(pool);
    if (!going || cut === null) throw new Error(`the worker's full was not running at ${c.at * 100} % of its requests: ${going ? '' : (await worker.exited).stderr.slice(-2000)}`);
    await restartEmbeddedServer(dir);
    // The server's clock, as sync_runs.started_at is: no skew between the bench's clock and its.
    const up = (await pool.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0]!.now;
    const succeeded = await untilSucceeded(pool, worker);
    worker.child.kill('SIGTERM');
    const end = await worker.exited;
    if (end.code !== 0) throw new Error(`the worker exited with ${end.code ?? end.signal} on SIGTERM: ${end.stderr.slice(-2000)}`);
    const requests = await simulatorTotal(sim);
    const { rows } = await pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at - $1::timestamptz)::float8 * 1000 AS ms FROM pitwall.sync_runs WHERE continues_run_id = $2`,
      [up, cut],
    );
    return {
      ...c,
      stop: 'restart',
      minRequests,
      requests,
      ratio: Math.round((1000 * requests) / minRequests) / 1000,
      continued: succeeded.continues !== null,
      resumedMs: rows[0] ? Math.round(rows[0].ms) : null,
      resumeBoundMs: RESUME_BOUND_MS,
    };
  } finally {
    // Nothing left behind, also on failure: the worker, the server (which outlives a killed
    // worker, pg_ctl having detached it), the directory, the simulator.
    try {
      if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await worker?.exited.catch(() => undefined);
      await warehouse?.close();
    } finally {
      try {
        await stopEmbeddedServer(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await sim.stop();
      }
    }
  }
}
