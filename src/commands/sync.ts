import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { refuseSharedSessions } from '../db/pooler-check.js';
import { loadSources, selectSources, sourceSecrets, type Source } from '../sources.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import { runSync } from '../sync/run.js';
import { recordConfiguredSources } from '../sync/sql/configured-sources.js';
import { gracefulStop } from '../worker/graceful-stop.js';

import { CONFIG_FLAG_OPTIONS, HELP, SOURCE_OPTION, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { createProgressReporter } from './progress.js';
import { runExitCode, summariesReport, worstExitCode } from './sync-report.js';

/**
 * `pitwall sync [--job full|season|live] [--source NAME ...] [--retry-set-aside] [--fresh] [--json]`:
 * one run of one job for each selected source, the sources side by side (each at its own key's
 * pace); `--retry-set-aside` visits the scopes set aside after repeated failures too. A run
 * continues the job's last run when that one stopped before its end; `--fresh` starts afresh. The first signal
 * drains the runs (nothing new starts; in-flight requests and transactions finish, cancelled
 * after PITWALL_SHUTDOWN_TIMEOUT_MS), which then end `interrupted` with exit code 130.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, ...SOURCE_OPTION, job: { type: 'string' }, json: { type: 'boolean' }, 'retry-set-aside': { type: 'boolean' }, fresh: { type: 'boolean' } },
  });
  const job = (values.job ?? 'full') as JobName;
  if (!JOB_NAMES.includes(job)) throw new UsageError(`--job must be one of ${JOB_NAMES.join(', ')}`);
  const config = loadConfig(ctx.env, configFlags(values));
  const configured = loadSources(config, ctx.env);
  const sources = selectSources(configured, values.source);
  const logger = makeLogger(config, ctx, sourceSecrets(sources));
  const poolMax = sources.reduce((n, s) => n + s.config.concurrency + 3, 0);
  const warehouse = await openWarehouse(config, logger, { poolMax, purpose: 'sync' });
  await refuseSharedSessions(warehouse, config);
  const stop = gracefulStop(config.shutdownTimeoutMs, ctx.signal);
  // The live progress line follows one run; several sources report in their log lines instead.
  const progress = createProgressReporter({ interactive: ctx.interactive && sources.length === 1, write: ctx.err, logger });
  try {
    await recordConfiguredSources(warehouse.pool, configured.map((s) => s.name));
    const one = (source: Source) =>
      runSync(
        { pool: warehouse.pool, config: source.config, logger, source: source.name },
        { job, trigger: 'manual', drain: stop.drain, signal: stop.abort, onProgress: progress.update, retrySetAside: values['retry-set-aside'] === true, fresh: values.fresh === true, callerSaysCause: true },
      );
    const summaries = await Promise.all(sources.map(one));
    progress.finish();
    ctx.out(summariesReport(sources.map((s) => s.name), summaries, values.json === true));
    for (const summary of summaries) {
      if (summary.keyRefused || summary.upstreamUnreachable) {
        // One line on stderr for the person (or script) who set the key or the URL; the summary stays on stdout.
        ctx.err?.(`pitwall: ${summary.error}\n`);
      }
    }
    return worstExitCode(summaries.map(runExitCode));
  } finally {
    stop.dispose();
    await warehouse.close();
  }
}
