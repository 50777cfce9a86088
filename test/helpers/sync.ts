import type pg from 'pg';

import { loadConfig } from '../../src/config.js';
import { createSilentLogger } from '../../src/log.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runSync, type SyncOptions, type RunSummary } from '../../src/sync/run.js';

export interface SyncTarget {
  pool: pg.Pool;
  url: string;
}

/** The configuration tests run pitwall with against the simulator, through loadConfig like a user's. */
export function testConfig(db: Pick<SyncTarget, 'url'>, sim: RunningSimulator, env: Record<string, string> = {}) {
  return loadConfig(
    {
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      DATABASE_URL: db.url,
      PITWALL_MAX_RPS: '0',
      PITWALL_CONCURRENCY: '4',
      PITWALL_REQUEST_TIMEOUT_MS: '5000',
      ...env,
    },
    {},
    { require: ['apiKey', 'databaseUrl'] },
  );
}

/** One sync against the simulator, configured the way a user would: through loadConfig. */
export async function syncOnce(
  db: SyncTarget,
  sim: RunningSimulator,
  options: SyncOptions & { env?: Record<string, string>; fetch?: typeof fetch } = {},
): Promise<RunSummary> {
  const config = testConfig(db, sim, options.env);
  const { env: _env, fetch: f, ...rest } = options;
  return runSync({ pool: db.pool, config, logger: createSilentLogger(), ...(f ? { fetch: f } : {}) }, rest);
}
