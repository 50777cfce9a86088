import { grantReadOnly, READABLE_OPERATIONS, READABLE_SCHEMAS } from '../analytics/grant-readonly.js';
import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall grant-readonly <role>`: SELECT on the mrp and analytics schemas (tables and views, now
 * and to come) and nothing else. On a PostgreSQL server or the embedded warehouse alike (whose
 * own reader role `pitwall serve-sql` makes).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse({ args: ctx.args, allowPositionals: true, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const role = positionals[0];
  if (!role || positionals.length > 1) throw new UsageError('usage: pitwall grant-readonly <role>');
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'grant-readonly' });
  try {
    // A RoleError (no such role, a superuser) ends the command as bad usage does: its own exitStatus.
    await grantReadOnly(warehouse.pool, role);
  } finally {
    await warehouse.close();
  }
  ctx.out(
    `role ${role} may now read schemas ${READABLE_SCHEMAS.join(' and ')} (tables and views, including ones created later by this role) and pitwall's ${READABLE_OPERATIONS.join(', ')}; nothing else of pitwall's`,
  );
  return EXIT.ok;
}
