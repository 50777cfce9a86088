import type pg from 'pg';

import { loadConfig } from '../../src/config.js';
import { createSilentLogger } from '../../src/log.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runSync, type SyncOptions, type RunSummary } from '../../src/sync/run.js';

export interface SyncTarget {
  pool: pg.Pool;
  url: string;
}

/** One sync against the simulator, configured the way a user would: through loadConfig. */
export async function syncOnce(
  db: SyncTarget,
  sim: RunningSimulator,
  options: SyncOptions & { env?: Record<string, string>; fetch?: typeof fetch } = {},
): Promise<RunSummary> {
  const config = loadConfig(
    {
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      DATABASE_URL: db.url,
      PITWALL_MAX_RPS: '0',
      PITWALL_CONCURRENCY: '4',
      PITWALL_REQUEST_TIMEOUT_MS: '5000',
      ...options.env,
    },
    {},
    { require: ['apiKey', 'databaseUrl'] },
  );
  const { env: _env, fetch: f, ...rest } = options;
  return runSync({ pool: db.pool, config, logger: createSilentLogger(), ...(f ? { fetch: f } : {}) }, rest);
}

/** Sum of rows written (inserted + updated + deleted) across tables. */
export function rowsWritten(s: RunSummary): number {
  return Object.values(s.tables).reduce((n, t) => n + (t ? t.inserted + t.updated + t.deleted : 0), 0);
}
