import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { loadSources, sourceSecrets } from '../sources.js';
import { JOB_NAMES } from '../sync/jobs.js';
import { createWorker } from '../worker/worker.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall worker`: each source's three jobs on their cron schedules until the first SIGTERM/SIGINT, then a
 * graceful stop (see Worker.stop) and exit 0. A second signal exits at once (the CLI's doing).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  const sources = loadSources(config, ctx.env);
  const logger = makeLogger(config, ctx, sourceSecrets(sources));
  // A job holds its lock connection and up to its source's `concurrency` transactions. Through
  // the job queue at most PITWALL_WORKER_JOBS jobs run here at once, whatever the number of
  // sources; the queue holds one connection for its LISTEN and borrows one or two to take and
  // complete jobs, and the catch-ups' and schedules' short queries and the health check share two
  // more. With `local` schedules every job of every source may run at once.
  const perJob = Math.max(...sources.map((s) => s.config.concurrency)) + 1;
  const poolMax =
    config.jobQueue === 'postgres'
      ? config.workerJobs * perJob + 3 + 2
      : sources.reduce((n, s) => n + JOB_NAMES.length * (s.config.concurrency + 1), 0) + 2;
  const warehouse = await openWarehouse(config, logger, { poolMax, purpose: 'worker', pending: 'apply' });
  // The global settings (port, token, time zone, shutdown) are every source's config's too.
  const worker = createWorker({ pool: warehouse.pool, config: sources[0]!.config, logger }, { sources });
  const stopped = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  try {
    await worker.start();
    await stopped;
    return EXIT.ok;
  } finally {
    await worker.stop();
    await warehouse.close();
  }
}
