import { loadConfig } from '../config.js';
import { migrateDatabase } from '../db/migrate.js';
import { createPool } from '../db/pool.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/** `pitwall migrate`: apply pending migrations under the migration advisory lock. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values), { require: ['databaseUrl'] });
  const logger = makeLogger(config, ctx);
  const pool = createPool(config.databaseUrl, { max: 2, logger });
  try {
    await migrateDatabase(pool);
    logger.info('migrations applied');
    return EXIT.ok;
  } finally {
    await pool.end();
  }
}
