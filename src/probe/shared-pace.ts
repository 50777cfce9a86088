import type { RateLimiter } from '../api/rate-limit.js';
import type { Config } from '../config.js';
import { takeGuestPlace, type GuestPlace } from '../coordination/guest.js';
import { ProcessPace } from '../coordination/pace.js';
import { createPool } from '../db/pool.js';
import { joinRunningEmbeddedServer } from '../embedded/server.js';
import type { Logger } from '../log.js';
import type { Source } from '../sources.js';

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
 * a migrated warehouse, the probe joins it as a guest of its sources (src/coordination/guest.ts),
 * so a worker that owns one gives it a share of the source's rate, and keeps to that share. That
 * is DATABASE_URL's, or else the embedded warehouse when its server is running (a worker or sync
 * uses it); the probe never starts it: a probe must not need a warehouse, and with the server
 * down no sync of that warehouse is making requests. Without one (a first contact, a database not
 * migrated or out of reach), the probe keeps to the rate alone.
 */
export async function openProbePace(config: Config, logger: Logger, sources: readonly Source[]): Promise<ProbePace> {
  const warehouse = await warehouseUrl(config, logger);
  if (!warehouse) return ALONE;
  const pool = createPool(warehouse.url, { max: 1, logger, applicationName: 'pitwall probe' });
  const close = async () => {
    await pool.end().catch(() => undefined);
    await warehouse.leave();
  };
  let guest: GuestPlace;
  try {
    const { rows } = await pool.query<{ present: boolean }>(`SELECT to_regclass('pitwall.sources') IS NOT NULL AS present`);
    if (!rows[0]?.present) {
      await close();
      logger.info(`probe: ${warehouse.where} is not migrated; the probe keeps to PITWALL_MAX_RPS on its own`);
      return ALONE;
    }
    guest = await takeGuestPlace(pool, sources.map((s) => s.name), { globalCap: sources.some((s) => s.config.globalMaxRps > 0) });
    await guest.ready();
  } catch (err) {
    await close();
    logger.warn({ reason: (err as Error).message }, `probe: ${warehouse.where} is out of reach; the probe keeps to PITWALL_MAX_RPS on its own`);
    return ALONE;
  }
  const pace = new ProcessPace(guest.shares);
  return {
    limiterFor: (source) => pace.of(source.name, { maxRps: source.config.maxRps, globalMaxRps: source.config.globalMaxRps, concurrency: source.config.concurrency }).limiter,
    close: async () => {
      await guest.leave();
      await close();
    },
  };
}
