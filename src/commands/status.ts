import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { loadSourceSettings, sourceSecrets } from '../sources.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, SOURCE_OPTION, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { perSourceJson, perSourceText, warehouseSources } from './per-source.js';
import { loadStatus, statusText } from './status-report.js';

/**
 * `pitwall status [--source NAME ...] [--json]`: per source (those configured and any other the
 * warehouse has runs of, or the ones named), running runs' progress, next runs from the
 * schedules its owning worker recorded, last runs, per-endpoint state, failing scopes, recent rejects. Needs
 * no API key.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, ...SOURCE_OPTION, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSourceSettings(config, ctx.env);
  const warehouse = await openWarehouse(config, makeLogger(config, ctx, sourceSecrets(configured)), { poolMax: 1, purpose: 'status' });
  try {
    const sources = await warehouseSources(warehouse.pool, configured, config, values.source);
    const reports = await loadStatus(
      warehouse.pool,
      sources.map((s) => ({ name: s.name, shapes: s.config.shapes ?? null, configured: s.configured })),
      10,
    );
    const names = sources.map((s) => s.name);
    ctx.out(values.json ? perSourceJson(names, reports) : perSourceText(names, reports.map((r, i) => statusText(r, names[i]))));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
