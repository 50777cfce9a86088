import { grantReadOnly, READABLE_SCHEMAS, RoleError } from '../analytics/grant-readonly.js';
import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall grant-readonly <role>`: SELECT on the mrp and analytics schemas (tables and views, now
 * and to come) and nothing else. PostgreSQL only: the embedded warehouse has one shared session
 * and no logins; `pitwall serve-sql` serves it read-only instead.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse({ args: ctx.args, allowPositionals: true, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const role = positionals[0];
  if (!role || positionals.length > 1) throw new UsageError('usage: pitwall grant-readonly <role>');
  const config = loadConfig(ctx.env, configFlags(values));
  if (!config.databaseUrl) {
    throw new UsageError('grant-readonly needs a PostgreSQL server (DATABASE_URL); the embedded warehouse has no roles: serve it read-only with pitwall serve-sql');
  }
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1 });
  try {
    await grantReadOnly(warehouse.pool, role);
  } catch (err) {
    if (err instanceof RoleError) throw new UsageError(err.message);
    throw err;
  } finally {
    await warehouse.close();
  }
  ctx.out(`role ${role} may now read schemas ${READABLE_SCHEMAS.join(' and ')} (tables and views, including ones created later by this role) and nothing else of pitwall's`);
  return EXIT.ok;
}
