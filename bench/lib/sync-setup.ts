import type pg from 'pg';

import { loadConfig, type ConfigWith } from '../../src/config.js';
import { createPool } from '../../src/db/pool.js';
import type { Scale } from '../../src/simulator/world/types.js';

import { startSimulatorProcess, type SimulatorProcess } from './child.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import { BENCH_SEED } from './result-rows.js';

/** The end-to-end section's upstream latency and requests in flight. */
export const E2E_LATENCY_MS = 25;
export const E2E_CONCURRENCY = 8;

export interface SyncSetup {
  db: BenchDatabase;
  sim: SimulatorProcess;
  /** concurrency + 2 connections, as `pitwall sync` opens. */
  pool: pg.Pool;
  config: ConfigWith<'apiKey' | 'databaseUrl'>;
  /** Ends the pool, stops the simulator and drops the database. */
  close(): Promise<void>;
}

/**
 * A fresh migrated database on `server`, a simulator of `scale` in its own process answering
 * after `latencyMs`, and the sync's configuration as `pitwall sync` parses it (no rate limit):
 * what the end-to-end section and `npm run bench:profile` both sync with.
 */
export async function openSyncSetup(server: string, label: string, opts: { scale: Scale; latencyMs: number; concurrency: number }): Promise<SyncSetup> {
  const [db, sim] = await Promise.all([createBenchDatabase(server, label, 1), startSimulatorProcess(opts.scale, BENCH_SEED, opts.latencyMs)]);
  const pool = createPool(db.url, { max: opts.concurrency + 2, applicationName: 'pitwall-bench-sync' });
  const config = loadConfig(
    {
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      DATABASE_URL: db.url,
      PITWALL_MAX_RPS: '0',
      PITWALL_CONCURRENCY: String(opts.concurrency),
      PITWALL_LOG_LEVEL: 'silent',
    },
    {},
    { require: ['apiKey', 'databaseUrl'] },
  );
  return {
    db,
    sim,
    pool,
    config,
    close: async () => {
      await pool.end();
      await Promise.all([sim.stop(), db.drop()]);
    },
  };
}
