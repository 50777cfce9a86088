import { abortableSleep, type RateLimiter } from '../api/rate-limit.js';
import type { Config } from '../config.js';
import { createPool } from '../db/pool.js';
import { joinRunningEmbeddedServer } from '../embedded/server.js';
import type { Logger } from '../log.js';
import type { Source } from '../sources.js';
import { sharedRateLimiter } from '../sync/sql/request-pace.js';

/** The pace a probe's sources share with their syncs and workers, while the probe runs. */
export interface ProbePace {
  /** The source's shared pace; undefined where there is none to share (the probe then keeps to its rate alone). */
  limiterFor(source: Source): RateLimiter | undefined;
  close(): Promise<void>;
}

const ALONE: ProbePace = { limiterFor: () => undefined, close: async () => {} };

/** Where the probe finds the warehouse: DATABASE_URL, or the embedded warehouse's server when it is up. */
async function warehouseUrl(config: Config, logger: Logger): Promise<{ url: string; where: string; leave: () => Promise<void> } | null> {
  if (config.databaseUrl) return { url: config.databaseUrl, where: 'the warehouse at DATABASE_URL', leave: async () => {} };
  try {
    const server = await joinRunningEmbeddedServer({ dir: config.dataDir, purpose: 'probe' });
    if (server) return { url: server.url, where: 'the embedded warehouse', leave: () => server.close() };
    logger.debug('probe: the embedded warehouse\'s server is not running, so no sync is using it; the probe keeps to PITWALL_MAX_RPS on its own');
  } catch (err) {
    logger.warn({ reason: (err as Error).message }, 'probe: the embedded warehouse could not be joined; the probe keeps to PITWALL_MAX_RPS on its own');
  }
  return null;
}

/**
 * A probe writes nothing, but its requests count against the key like any other: where there is
 * a migrated warehouse, each request takes its slot in pitwall.request_pace, beside the source's
 * syncs and workers, as theirs do. That is DATABASE_URL's, or else the embedded warehouse when its
 * server is running (a worker or sync uses it); the probe never starts it: a probe must not need
 * a warehouse, and with the server down no sync of that warehouse is making requests. Without one
 * (a first contact, a database not migrated or out of reach), the probe keeps to the rate alone.
 */
export async function openProbePace(config: Config, logger: Logger): Promise<ProbePace> {
  const warehouse = await warehouseUrl(config, logger);
  if (!warehouse) return ALONE;
  const pool = createPool(warehouse.url, { max: 1, logger, applicationName: 'pitwall probe' });
  const close = async () => {
    await pool.end().catch(() => undefined);
    await warehouse.leave();
  };
  try {
    const { rows } = await pool.query<{ present: boolean }>(`SELECT to_regclass('pitwall.request_pace') IS NOT NULL AS present`);
    if (!rows[0]?.present) {
      await close();
      logger.info(`probe: ${warehouse.where} is not migrated; the probe keeps to PITWALL_MAX_RPS on its own`);
      return ALONE;
    }
  } catch (err) {
    await close();
    logger.warn({ reason: (err as Error).message }, `probe: ${warehouse.where} is out of reach; the probe keeps to PITWALL_MAX_RPS on its own`);
    return ALONE;
  }
  return {
    limiterFor: (source) => sharedRateLimiter(pool, source.name, { maxRps: source.config.maxRps, globalMaxRps: source.config.globalMaxRps }, abortableSleep),
    close,
  };
}
