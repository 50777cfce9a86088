import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { ENDPOINTS } from '../endpoints/registry.js';
import { suggestShapes } from '../shapes/suggest.js';
import { loadDrift } from '../sync/shape/load.js';
import { loadFailingValues, loadPathEvidence } from '../sync/shape/sql.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { driftText } from './drift-report.js';

/**
 * `pitwall drift [--json] [--suggest]`: the shape report of every response loaded so far, per
 * endpoint: modelled fields most items lack, fields no schema models, fields whose values failed
 * their type. `--suggest` prints instead a `PITWALL_SHAPES` file for what the report can explain
 * (stdout: the JSON alone, so `> shapes.json` works), with a line per finding on stderr.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' }, suggest: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'drift' });
  try {
    if (values.suggest) {
      const [paths, failing] = await Promise.all([loadPathEvidence(warehouse.pool), loadFailingValues(warehouse.pool)]);
      const { file, notes } = suggestShapes(ENDPOINTS, paths, failing);
      ctx.out(JSON.stringify(file, null, 2));
      ctx.err?.(`${(notes.length ? notes : ['nothing the report can explain: no suggestion']).join('\n')}\n`);
      return EXIT.ok;
    }
    const report = await loadDrift(warehouse.pool, config.shapes ?? null);
    ctx.out(values.json ? JSON.stringify({ endpoints: report }) : driftText(report));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
