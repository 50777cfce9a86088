import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { ENDPOINTS } from '../endpoints/registry.js';
import { suggestShapes } from '../shapes/suggest.js';
import { loadSourceSettings, sourceSecrets } from '../sources.js';
import { loadDrift } from '../sync/shape/load.js';
import type { EndpointDrift } from '../sync/shape/report.js';
import { loadFailingValues, loadPathEvidence } from '../sync/shape/sql.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, SOURCE_OPTION, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { driftText } from './drift-report.js';
import { perSourceJson, perSourceText, warehouseSources } from './per-source.js';

/**
 * `pitwall drift [--source NAME ...] [--json] [--suggest]`: the shape report of every response
 * loaded so far, per source (those configured and any other the warehouse has runs of, or the
 * ones named) and endpoint: modelled fields most items lack, fields no schema models, fields
 * whose values failed their type, each source under its own PITWALL_SHAPES. `--suggest` prints
 * instead a `PITWALL_SHAPES` file for what one source's report can explain (stdout: the JSON
 * alone, so `> shapes.json` works), with a line per finding on stderr.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, ...SOURCE_OPTION, json: { type: 'boolean' }, suggest: { type: 'boolean' } },
  });
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSourceSettings(config, ctx.env);
  const warehouse = await openWarehouse(config, makeLogger(config, ctx, sourceSecrets(configured)), { poolMax: 1, purpose: 'drift' });
  try {
    const sources = await warehouseSources(warehouse.pool, configured, config, values.source);
    const names = sources.map((s) => s.name);
    if (values.suggest) {
      // One file for one source: sources with shapes files of their own get a suggestion each.
      if (sources.length !== 1) throw new UsageError(`--suggest writes one PITWALL_SHAPES file: name one source with --source (${names.join(', ')})`);
      const [paths, failing] = await Promise.all([loadPathEvidence(warehouse.pool, names), loadFailingValues(warehouse.pool, names)]);
      const { file, notes } = suggestShapes(ENDPOINTS, paths, failing);
      ctx.out(JSON.stringify(file, null, 2));
      ctx.err?.(`${(notes.length ? notes : ['nothing the report can explain: no suggestion']).join('\n')}\n`);
      return EXIT.ok;
    }
    const reports: EndpointDrift[][] = [];
    for (const source of sources) reports.push(await loadDrift(warehouse.pool, source.config.shapes ?? null, [source.name]));
    ctx.out(values.json ? perSourceJson(names, reports.map((endpoints) => ({ endpoints }))) : perSourceText(names, reports.map(driftText)));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
