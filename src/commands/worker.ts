import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { JOB_NAMES } from '../sync/jobs.js';
import { createWorker } from '../worker/worker.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall worker`: the three jobs on their cron schedules until the first SIGTERM/SIGINT, then a
 * graceful stop (see Worker.stop) and exit 0. A second signal exits at once (the CLI's doing).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values), { require: ['apiKey'] });
  const logger = makeLogger(config, ctx);
  // Every job may run at once, each with its lock connection and `concurrency` transactions,
  // and the health check needs one more for its SELECT 1.
  const warehouse = await openWarehouse(config, logger, { poolMax: JOB_NAMES.length * (config.concurrency + 1) + 2, purpose: 'worker' });
  const worker = createWorker({ pool: warehouse.pool, config, logger });
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
