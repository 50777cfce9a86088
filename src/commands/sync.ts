import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import { runSync } from '../sync/run.js';
import { gracefulStop } from '../worker/graceful-stop.js';

import { CONFIG_FLAG_OPTIONS, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { createProgressReporter } from './progress.js';
import { runExitCode, summaryJson, summaryText } from './sync-report.js';

/**
 * `pitwall sync [--job full|season|live] [--json]`: one run of one job. The first signal drains
 * the run (nothing new starts; in-flight requests and transactions finish, cancelled after
 * PITWALL_SHUTDOWN_TIMEOUT_MS), which then ends `interrupted` with exit code 130.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, job: { type: 'string' }, json: { type: 'boolean' } },
  });
  const job = (values.job ?? 'full') as JobName;
  if (!JOB_NAMES.includes(job)) throw new UsageError(`--job must be one of ${JOB_NAMES.join(', ')}`);
  const config = loadConfig(ctx.env, configFlags(values), { require: ['apiKey'] });
  const logger = makeLogger(config, ctx);
  const warehouse = await openWarehouse(config, logger, { poolMax: config.concurrency + 2, purpose: 'sync' });
  const stop = gracefulStop(config.shutdownTimeoutMs, ctx.signal);
  const progress = createProgressReporter({ interactive: ctx.interactive, write: ctx.err, logger });
  try {
    const summary = await runSync(
      { pool: warehouse.pool, config, logger },
      { job, trigger: 'manual', drain: stop.drain, signal: stop.abort, onProgress: progress.update },
    );
    progress.finish();
    ctx.out(values.json ? summaryJson(summary) : summaryText(summary));
    if (summary.keyRefused || summary.upstreamUnreachable) {
      // One line on stderr for the person (or script) who set the key or the URL; the summary stays on stdout.
      ctx.err?.(`pitwall: ${summary.error}\n`);
    }
    return runExitCode(summary);
  } finally {
    stop.dispose();
    await warehouse.close();
  }
}
