import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { ENDPOINTS, type EndpointName } from '../sync/endpoints.js';
import { REBUILD_LOCKS, runRebuild } from '../sync/rebuild.js';
import { gracefulStop } from '../worker/graceful-stop.js';

import { CONFIG_FLAG_OPTIONS, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { runExitCode, summaryJson, summaryText } from './sync-report.js';

const ENDPOINT_NAMES: readonly string[] = ENDPOINTS.map((e) => e.name);

/**
 * `pitwall rebuild [--endpoint NAME]... [--json]`: re-derives the typed tables from the response
 * bodies kept in pitwall.responses, sending nothing upstream, and prints the same summary as
 * `pitwall sync`. Needs no API key. Stops like a sync on the first signal (exit 130).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, endpoint: { type: 'string', multiple: true }, json: { type: 'boolean' } },
  });
  const unknown = (values.endpoint ?? []).filter((name) => !ENDPOINT_NAMES.includes(name));
  if (unknown.length > 0) throw new UsageError(`--endpoint: unknown ${unknown.join(', ')}; one of ${ENDPOINT_NAMES.join(', ')}`);
  const config = loadConfig(ctx.env, configFlags(values));
  const logger = makeLogger(config, ctx);
  // The loads in flight, the locks (one connection each) and the run's own bookkeeping.
  const poolMax = config.concurrency + REBUILD_LOCKS.length + 1;
  const warehouse = await openWarehouse(config, logger, { poolMax, purpose: 'rebuild' });
  const stop = gracefulStop(config.shutdownTimeoutMs, ctx.signal);
  try {
    const summary = await runRebuild(
      { pool: warehouse.pool, config, logger },
      { endpoints: (values.endpoint ?? []) as EndpointName[], drain: stop.drain, signal: stop.abort },
    );
    ctx.out(values.json ? summaryJson(summary) : summaryText(summary));
    return runExitCode(summary);
  } finally {
    stop.dispose();
    await warehouse.close();
  }
}
