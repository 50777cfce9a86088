import { loadConfig, type Config } from '../config.js';
import { nextFire } from '../cron/next-fire.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { loadSourceSettings, sourceSecrets } from '../sources.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, SOURCE_OPTION, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { perSourceJson, perSourceText, warehouseSources } from './per-source.js';
import { loadStatus, statusText } from './status-report.js';

/**
 * `pitwall status [--source NAME ...] [--json]`: per source (those configured and any other the
 * warehouse has runs of, or the ones named), running runs' progress, next runs from this
 * process's cron settings, last runs, per-endpoint state, failing scopes, recent rejects. Needs
 * no API key.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, ...SOURCE_OPTION, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSourceSettings(config, ctx.env);
  const warehouse = await openWarehouse(config, makeLogger(config, ctx, sourceSecrets(configured)), { poolMax: 1, purpose: 'status' });
  try {
    // A run whose process died is shown abandoned now, not only once a worker restarts.
    await markDeadRuns(warehouse.pool);
    const sources = await warehouseSources(warehouse.pool, configured, config, values.source);
    const reports = await loadStatus(
      warehouse.pool,
      // A source only the warehouse knows has no schedule in this process.
      sources.map((s) => ({ name: s.name, nextRuns: s.configured ? nextRuns(s.config) : {}, shapes: s.config.shapes ?? null, configured: s.configured })),
      10,
    );
    const names = sources.map((s) => s.name);
    ctx.out(values.json ? perSourceJson(names, reports) : perSourceText(names, reports.map((r, i) => statusText(r, names[i]))));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}

/** When each job's schedule fires next, by a source's cron settings as this process reads them. */
function nextRuns(config: Config): Record<string, string | null> {
  const schedules = { live: config.cronLive, season: config.cronSeason, full: config.cronFull };
  return Object.fromEntries(Object.entries(schedules).map(([job, cron]) => [job, nextFire(cron, config.timezone)?.toISOString() ?? null]));
}
