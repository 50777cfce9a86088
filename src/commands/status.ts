import { loadConfig } from '../config.js';
import { nextFire } from '../cron/next-fire.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { loadStatus, statusText } from './status-report.js';

/** `pitwall status [--json]`: running runs' progress, next runs from this process's cron settings, last runs, per-endpoint state, failing scopes, recent rejects. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'status' });
  try {
    // A run whose process died is shown abandoned now, not only once a worker restarts.
    await markDeadRuns(warehouse.pool);
    const schedules = { live: config.cronLive, season: config.cronSeason, full: config.cronFull };
    const nextRuns = Object.fromEntries(Object.entries(schedules).map(([job, cron]) => [job, nextFire(cron, config.timezone)?.toISOString() ?? null]));
    const report = await loadStatus(warehouse.pool, 10, nextRuns, config.shapes ?? null);
    ctx.out(values.json ? JSON.stringify(report) : statusText(report));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
