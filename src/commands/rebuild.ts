import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { refuseSharedSessions } from '../db/pooler-check.js';
import { loadSourceSettings, sourceSecrets } from '../sources.js';
import { ENDPOINTS, type EndpointName } from '../sync/endpoints.js';
import { REBUILD_LOCKS, runRebuild } from '../sync/rebuild.js';
import type { RunSummary } from '../sync/run.js';
import { gracefulStop } from '../worker/graceful-stop.js';

import { CONFIG_FLAG_OPTIONS, HELP, SOURCE_OPTION, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { warehouseSources } from './per-source.js';
import { runExitCode, summariesReport, worstExitCode } from './sync-report.js';

const ENDPOINT_NAMES: readonly string[] = ENDPOINTS.map((e) => e.name);

/**
 * `pitwall rebuild [--endpoint NAME]... [--source NAME]... [--json]`: re-derives the typed tables
 * from the response bodies kept in pitwall.responses, sending nothing upstream, and prints the
 * same summary as `pitwall sync`. Each source (those configured and any other the warehouse has
 * runs of, or the ones named) is rebuilt from its own bodies into its own rows, one after
 * another. Needs no API key. Stops like a sync on the first signal (exit 130).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, ...SOURCE_OPTION, endpoint: { type: 'string', multiple: true }, json: { type: 'boolean' } },
  });
  const unknown = (values.endpoint ?? []).filter((name) => !ENDPOINT_NAMES.includes(name));
  if (unknown.length > 0) throw new UsageError(`--endpoint: unknown ${unknown.join(', ')}; one of ${ENDPOINT_NAMES.join(', ')}`);
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSourceSettings(config, ctx.env);
  const logger = makeLogger(config, ctx, sourceSecrets(configured));
  // One rebuild at a time: the loads in flight of the busiest source, its locks (one connection
  // each) and the run's own bookkeeping.
  const concurrency = Math.max(config.concurrency, ...configured.map((s) => s.config.concurrency));
  const poolMax = concurrency + REBUILD_LOCKS.length + 1;
  const warehouse = await openWarehouse(config, logger, { poolMax, purpose: 'rebuild' });
  await refuseSharedSessions(warehouse, config);
  const stop = gracefulStop(config.shutdownTimeoutMs, ctx.signal);
  try {
    const sources = await warehouseSources(warehouse.pool, configured, config, values.source);
    const done: Array<{ name: string; summary: RunSummary }> = [];
    for (const source of sources) {
      // A stop asked for during one source's rebuild ends it; the sources after it do not start.
      if (stop.drain.aborted && done.length > 0) break;
      const summary = await runRebuild(
        { pool: warehouse.pool, config: source.config, logger, source: source.name },
        { endpoints: (values.endpoint ?? []) as EndpointName[], drain: stop.drain, signal: stop.abort },
      );
      done.push({ name: source.name, summary });
    }
    const summaries = done.map((d) => d.summary);
    ctx.out(summariesReport(done.map((d) => d.name), summaries, values.json === true));
    return worstExitCode(summaries.map(runExitCode));
  } finally {
    stop.dispose();
    await warehouse.close();
  }
}
