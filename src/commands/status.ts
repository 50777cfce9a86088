import { loadConfig } from '../config.js';
import { createPool } from '../db/pool.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { loadStatus, statusText } from './status-report.js';

/** `pitwall status [--json]`: last runs, per-endpoint state, failing scopes, recent rejects. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' } } });
  const config = loadConfig(ctx.env, configFlags(values), { require: ['databaseUrl'] });
  const pool = createPool(config.databaseUrl, { max: 1, logger: makeLogger(config, ctx) });
  try {
    const report = await loadStatus(pool);
    ctx.out(values.json ? JSON.stringify(report) : statusText(report));
    return EXIT.ok;
  } finally {
    await pool.end();
  }
}
