import { loadConfig } from '../config.js';
import { removeWarehouse, warehouseRemoval, type WarehouseRemoval } from '../embedded/remove-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, parse, type CommandContext } from './context.js';

const what = (r: WarehouseRemoval): string => `the embedded warehouse in ${r.dir}${r.relocated ? ` and its cluster in ${r.relocated}` : ''}`;

/**
 * `pitwall remove-warehouse --yes`: removes the embedded warehouse in PITWALL_DATA_DIR together
 * with its cluster kept elsewhere (as root, under /var/lib/pitwall/clusters). Deleting the
 * directory by hand leaves that cluster for a day (the orphan sweep cannot tell a removed
 * directory from a moved one); this removes both now. Without --yes it says what it would remove.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, yes: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  if (config.databaseUrl) {
    throw new UsageError('remove-warehouse removes the embedded warehouse (PITWALL_DATA_DIR); a database at DATABASE_URL is dropped the usual way (dropdb)');
  }
  if (!values.yes) throw new UsageError(`this would remove ${what(warehouseRemoval(config.dataDir))}, every row in it; run again with --yes to remove it`);
  ctx.out(`removed ${what(await removeWarehouse(config.dataDir))}`);
  return EXIT.ok;
}
