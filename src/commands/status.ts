import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { loadStatus, statusText } from './status-report.js';

/** `pitwall status [--json]`: last runs, per-endpoint state, failing scopes, recent rejects. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'status' });
  try {
    // A run whose process died is shown abandoned now, not only once a worker restarts.
    await markDeadRuns(warehouse.pool);
    const report = await loadStatus(warehouse.pool);
    ctx.out(values.json ? JSON.stringify(report) : statusText(report));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
