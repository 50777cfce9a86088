import { loadConfig } from '../config.js';
import { logCatalogKeys } from '../db/catalog-keys.js';
import { migrateDatabase } from '../db/migrate.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall migrate`: apply pending migrations, then reconcile the foreign keys declared NOT
 * ENFORCED on PostgreSQL 18 and later, under the migration advisory lock.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  const logger = makeLogger(config, ctx);
  const warehouse = await openWarehouse(config, logger, { poolMax: 2, purpose: 'migrate', pending: 'leave' });
  try {
    const { applied, ms, keys } = await migrateDatabase(warehouse.pool);
    // A migration that rewrites every key (0013, sources) can take a while on a large warehouse.
    logger.info({ applied, ms }, applied === 0 ? 'migrations: none pending' : `migrations applied: ${applied} in ${ms} ms`);
    logCatalogKeys(logger, keys);
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
