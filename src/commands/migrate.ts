import { loadConfig } from '../config.js';
import { migrateWarehouse } from '../db/migrate-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall migrate`: apply pending migrations, then reconcile the foreign keys declared NOT
 * ENFORCED on PostgreSQL 18 and later, under the migration advisory lock.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  await migrateWarehouse(config, makeLogger(config, ctx), 'migrate');
  return EXIT.ok;
}
