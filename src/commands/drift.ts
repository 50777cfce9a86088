import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { loadDrift } from '../sync/shape/load.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { driftText } from './drift-report.js';

/**
 * `pitwall drift [--json]`: the shape report of every response loaded so far, per endpoint:
 * modelled fields most items lack, fields no schema models, fields whose values failed their type.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'drift' });
  try {
    const report = await loadDrift(warehouse.pool);
    ctx.out(values.json ? JSON.stringify({ endpoints: report }) : driftText(report));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
