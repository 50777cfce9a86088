import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { loadSourceSettings, sourceSecrets } from '../sources.js';
import { noLongerConfigured } from '../sync/sql/configured-sources.js';
import { markDeadRuns } from '../sync/sql/dead-runs.js';
import { recordedSources } from '../sync/sql/recorded-sources.js';
import { retireSource } from '../sync/sql/retire-source.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall retire-source NAME [--delete] [--json]`: for a source PITWALL_SOURCES no longer names,
 * marks its rows deleted (or, with `--delete`, removes every row of it). Refused, in one line
 * saying what to do, while the source is configured here or for the last worker or sync that
 * started, and (exit 3) while a run of it holds its job lock. Needs no API key.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse({
    args: ctx.args,
    allowPositionals: true,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, delete: { type: 'boolean' }, json: { type: 'boolean' } },
  });
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError('usage: pitwall retire-source NAME [--delete]');
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSourceSettings(config, ctx.env);
  const again = `then run pitwall retire-source ${name}${values.delete ? ' --delete' : ''} again`;
  if (configured.some((s) => s.name === name)) {
    const where = config.sourcesFile === undefined ? 'it is the one source without a PITWALL_SOURCES file' : `PITWALL_SOURCES (${config.sourcesFile}) names it`;
    throw new UsageError(`source ${name} is still configured (${where}): remove it from the configuration, ${again}`);
  }
  const warehouse = await openWarehouse(config, makeLogger(config, ctx, sourceSecrets(configured)), { poolMax: 1, purpose: 'retire-source' });
  try {
    const recorded = (await noLongerConfigured(warehouse.pool, [name])).get(name);
    const known = await recordedSources(warehouse.pool);
    if (!known.includes(name) && !recorded?.last_configured_at) {
      throw new UsageError(`the warehouse has no source named ${name}; it has ${known.length ? known.join(', ') : 'none'}`);
    }
    if (recorded?.last_configured_at && recorded.since === null) {
      throw new UsageError(
        `source ${name} is still configured for the last worker or sync that started (at ${recorded.last_configured_at}): remove it from their PITWALL_SOURCES and restart them, ${again}`,
      );
    }
    // A run whose process died holds no lock: it is shown abandoned, not named as running.
    await markDeadRuns(warehouse.pool);
    const outcome = await retireSource(warehouse.pool, name, values.delete ? 'delete' : 'mark');
    if (!outcome.done) {
      const run = outcome.running ? `run ${outcome.running.run_id} (${outcome.running.job}, started ${outcome.running.started_at})` : 'a sync or rebuild';
      ctx.err?.(`pitwall: ${run} of source ${name} is running: wait for it to end or stop the process running it, ${again}\n`);
      return EXIT.skipped;
    }
    const rows = Object.entries(outcome.rows);
    const sum = (entries: typeof rows) => entries.reduce((n, [, count]) => n + count, 0);
    const data = rows.filter(([table]) => table.startsWith('mrp.'));
    if (values.json) ctx.out(JSON.stringify({ source: name, action: values.delete ? 'deleted' : 'marked deleted', rows: outcome.rows }));
    else if (values.delete) ctx.out(`source ${name} deleted: ${sum(data)} mrp rows and ${sum(rows) - sum(data)} rows of its history and bookkeeping removed`);
    else ctx.out(`source ${name} retired: ${sum(data)} mrp rows marked deleted; its scope states and kept bodies dropped (pitwall retire-source ${name} --delete removes every row of it)`);
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
