import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { topOfStandings, warehouseCounts } from '../analytics/demo-report.js';
import { loadConfig } from '../config.js';
import { dataElsewhereLine, openWarehouse } from '../db/open-warehouse.js';
import { startSimulator } from '../simulator/server.js';
import type { Scale } from '../simulator/world/types.js';
import { runSync } from '../sync/run.js';

import { EXIT, HELP, UsageError, makeLogger, parse, worldToday, type CommandContext } from './context.js';
import { renderTable } from './format.js';
import { createProgressReporter } from './progress.js';

const SCALES: readonly Scale[] = ['tiny', 'small', 'medium'];

/**
 * What the demo suggests next, as docs/operations.md does (test/install/packed.test.ts runs
 * both from an installed package). Named columns, not `SELECT *`: the tables' raw JSON and the
 * views' dozen columns would wrap in a 120-column terminal. The recipe takes no parameter, so it
 * answers for every scale and seed.
 */
const FOLLOW_UP_QUERY =
  'SELECT schedule_name, class_name, driver_name, point_total, wins FROM analytics.current_standings WHERE latest_season AND position = 1 ORDER BY 1, 2';
const FOLLOW_UP_RECIPE = 'feature-wins-this-season';

/** The cookbook shipped beside the code (src/commands or dist/commands), so an installed package names its own copy. */
const COOKBOOK_PATH = fileURLToPath(new URL('../../docs/cookbook.md', import.meta.url));

/**
 * `pitwall demo [--scale small] [--seed 7] [--today YYYY-MM-DD] [--dir DIR]`: the first five minutes in one command.
 * Starts the simulator in this process, syncs it into a fresh embedded warehouse (DIR, by
 * default PITWALL_DATA_DIR/demo; DATABASE_URL is ignored, so a real database is never touched),
 * prints what was loaded and the top of the standings, and says how to query and attach. The
 * world's today is the machine's (or --today), as `pitwall simulate`'s is, so its past is the recipes' past.
 * Offline: the simulator and the warehouse's PostgreSQL server both listen on 127.0.0.1.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...HELP, scale: { type: 'string' }, seed: { type: 'string' }, today: { type: 'string' }, dir: { type: 'string' } },
  });
  const scale = (values.scale ?? 'small') as Scale;
  if (!SCALES.includes(scale)) throw new UsageError(`--scale must be one of ${SCALES.join(', ')}`);
  if (values.seed !== undefined && !/^\d+$/.test(values.seed)) throw new UsageError('--seed must be a whole number');
  const today = worldToday(values.today);
  const started = performance.now();
  const say = (text: string) => ctx.err?.(`${text}\n`);

  const sim = await startSimulator({ scale, seed: Number(values.seed ?? 7), today });
  try {
    const config = loadConfig({
      ...ctx.env,
      DATABASE_URL: '',
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '0',
      PITWALL_LOG_LEVEL: ctx.env.PITWALL_LOG_LEVEL ?? 'warn',
    }, {}, { require: ['apiKey'] });
    const dir = values.dir ?? join(config.dataDir, 'demo');
    const logger = makeLogger(config, ctx);
    const world = sim.world.summary();
    say(`simulator: ${world.events} events in ${world.years.length} seasons, ${world.drivers} drivers (seed ${world.seed}, today ${world.today})`);
    say(`creating an embedded warehouse in ${dir} ...`);
    const warehouse = await openWarehouse(config, logger, { dir, fresh: true, purpose: 'demo', poolMax: config.concurrency + 3 });
    try {
      const progress = createProgressReporter({ interactive: ctx.interactive, write: ctx.err, logger });
      const summary = await runSync(
        { pool: warehouse.pool, config, logger },
        { job: 'full', trigger: 'manual', signal: ctx.signal, onProgress: progress.update },
      );
      progress.finish();
      if (summary.status !== 'succeeded') {
        say(`the sync ended ${summary.status}: ${summary.error ?? ''}`);
        return summary.status === 'interrupted' ? EXIT.interrupted : EXIT.failed;
      }
      const counts = await warehouseCounts(warehouse.pool);
      const top = await topOfStandings(warehouse.pool);
      // Relative when under the working directory, as typed; absolute when a climb out of it would be longer to read.
      const near = relative('.', dir) || '.';
      const where = near.startsWith('..') ? resolve(dir) : near;
      ctx.out(
        [
          `Loaded ${counts.events} events (${counts.eventsWithResults} with results), ${counts.results} result rows, ${counts.drivers} drivers ` +
            `and ${counts.standings} standings rows from ${summary.requests} requests in ${((performance.now() - started) / 1000).toFixed(1)} s.`,
          '',
          `Current standings: ${top[0]?.schedule_name ?? '(none)'}`,
          renderTable(
            ['class', 'pos', 'driver', 'car', 'points', 'behind'],
            top.map((r) => [r.class_name, r.position, r.driver_name, r.car_number, r.point_total, r.gap_to_leader]),
            [false, true, false, false, true, true],
          ),
          '',
          `Query it (views in schema analytics, tables in mrp; more recipes in ${COOKBOOK_PATH}):`,
          `  PITWALL_DATA_DIR=${where} npx pitwall sql "${FOLLOW_UP_QUERY}"`,
          `  PITWALL_DATA_DIR=${where} npx pitwall sql --recipe ${FOLLOW_UP_RECIPE}`,
          'Attach psql or a BI tool (DBeaver, Metabase, Grafana):',
          `  PITWALL_DATA_DIR=${where} npx pitwall serve-sql --port 5433`,
          ...(warehouse.dataElsewhere ? [`Note: ${dataElsewhereLine(where, warehouse.dataElsewhere)}.`] : []),
          'Remove it when done:',
          `  PITWALL_DATA_DIR=${where} npx pitwall remove-warehouse --yes`,
        ].join('\n'),
      );
      return EXIT.ok;
    } finally {
      await warehouse.close();
    }
  } finally {
    await sim.close();
  }
}
