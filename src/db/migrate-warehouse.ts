import type { Config } from '../config.js';
import type { Logger } from '../log.js';

import { logCatalogKeys } from './catalog-keys.js';
import { migrateDatabase } from './migrate.js';
import { openWarehouse } from './open-warehouse.js';

/**
 * Applies the warehouse's pending migrations and reconciles the foreign keys declared NOT
 * ENFORCED, under the migration advisory lock: what `pitwall migrate` does, and what
 * `pitwall upgrade-warehouse` does last, so that the warehouse it leaves is ready to use.
 */
export async function migrateWarehouse(config: Config, logger: Logger, purpose: string): Promise<{ applied: number; ms: number }> {
  const warehouse = await openWarehouse(config, logger, { poolMax: 2, purpose, pending: 'leave' });
  try {
    const { applied, ms, keys } = await migrateDatabase(warehouse.pool);
    // A migration that rewrites every key (0013, sources) can take a while on a large warehouse.
    logger.info({ applied, ms }, applied === 0 ? 'migrations: none pending' : `migrations applied: ${applied} in ${ms} ms`);
    logCatalogKeys(logger, keys);
    return { applied, ms };
  } finally {
    await warehouse.close();
  }
}
