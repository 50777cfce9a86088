import { loadConfig } from '../config.js';
import { migrateDatabase } from '../db/migrate.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/** `pitwall migrate`: apply pending migrations under the migration advisory lock. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  const logger = makeLogger(config, ctx);
  const warehouse = await openWarehouse(config, logger, { poolMax: 2, purpose: 'migrate' });
  try {
    await migrateDatabase(warehouse.pool);
    logger.info('migrations applied');
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
