import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { refuseSharedSessions } from '../db/pooler-check.js';
import { loadSources, sourceSecrets } from '../sources.js';
import { createWorker } from '../worker/worker.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { untilAborted } from './until-aborted.js';

/**
 * `pitwall worker`: each source's three jobs on their cron schedules until the first SIGTERM/SIGINT, then a
 * graceful stop (see Worker.stop) and exit 0. A second signal exits at once (the CLI's doing).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  const sources = loadSources(config, ctx.env);
  const logger = makeLogger(config, ctx, sourceSecrets(sources));
  // The pool is a setting, not a product of sources and jobs: runs borrow a connection only to
  // load an answer or record themselves, and their locks live on the worker's one lock session.
  const poolMax = config.dbPoolSize;
  const warehouse = await openWarehouse(config, logger, { poolMax, purpose: 'worker', pending: 'apply', sayWhereDataLives: true });
  await refuseSharedSessions(warehouse, config);
  // The global settings (port, token, time zone, shutdown) are every source's config's too.
  const worker = createWorker({ pool: warehouse.pool, config: sources[0]!.config, logger }, { sources });
  try {
    await worker.start();
    // Held until the signal, also while the worker holds no lock session and so runs nothing.
    await untilAborted(ctx.signal);
    return EXIT.ok;
  } finally {
    await worker.stop();
    await warehouse.close();
  }
}
