import { abortableSleep, type RateLimiter } from '../api/rate-limit.js';
import type { Config } from '../config.js';
import { createPool } from '../db/pool.js';
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

/**
 * A probe writes nothing, but its requests count against the key like any other: where
 * DATABASE_URL names a migrated warehouse, each request takes its slot in pitwall.request_pace,
 * beside the source's syncs and workers, as theirs do. Without one (no DATABASE_URL, a database
 * not migrated or out of reach: a first contact), the probe keeps to the rate on its own. The
 * embedded warehouse is not started for it: a probe must not need one.
 */
export async function openProbePace(config: Config, logger: Logger): Promise<ProbePace> {
  if (!config.databaseUrl) return ALONE;
  const pool = createPool(config.databaseUrl, { max: 1, logger, applicationName: 'pitwall probe' });
  try {
    const { rows } = await pool.query<{ present: boolean }>(`SELECT to_regclass('pitwall.request_pace') IS NOT NULL AS present`);
    if (!rows[0]?.present) {
      await pool.end();
      logger.info('probe: the warehouse at DATABASE_URL is not migrated; the probe keeps to PITWALL_MAX_RPS on its own');
      return ALONE;
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    logger.warn({ reason: (err as Error).message }, 'probe: the warehouse at DATABASE_URL is out of reach; the probe keeps to PITWALL_MAX_RPS on its own');
    return ALONE;
  }
  return {
    limiterFor: (source) => sharedRateLimiter(pool, source.name, { maxRps: source.config.maxRps, globalMaxRps: source.config.globalMaxRps }, abortableSleep),
    close: () => pool.end(),
  };
}
