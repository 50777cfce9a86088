import { loadConfig } from '../config.js';
import { createPool } from '../db/pool.js';
import { JOB_NAMES, type JobName } from '../sync/jobs.js';
import { runSync } from '../sync/run.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { summaryJson, summaryText } from './sync-report.js';

/** `pitwall sync [--job full|season|live] [--json]`: one run of one job. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, job: { type: 'string' }, json: { type: 'boolean' } },
  });
  const job = (values.job ?? 'full') as JobName;
  if (!JOB_NAMES.includes(job)) throw new UsageError(`--job must be one of ${JOB_NAMES.join(', ')}`);
  const config = loadConfig(ctx.env, configFlags(values), { require: ['apiKey', 'databaseUrl'] });
  const logger = makeLogger(config, ctx);
  const pool = createPool(config.databaseUrl, { max: config.concurrency + 2, logger });
  try {
    const summary = await runSync({ pool, config, logger }, { job, trigger: 'manual', signal: ctx.signal });
    ctx.out(values.json ? summaryJson(summary) : summaryText(summary));
    if (summary.status === 'succeeded') return EXIT.ok;
    if (summary.status === 'skipped') return EXIT.skipped;
    if (summary.status === 'interrupted') return EXIT.interrupted;
    return EXIT.failed;
  } finally {
    await pool.end();
  }
}
