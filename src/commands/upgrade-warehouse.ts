import { loadConfig } from '../config.js';
import { migrateWarehouse } from '../db/migrate-warehouse.js';
import { upgradeWarehouse, type UpgradeReport } from '../db/upgrade-warehouse.js';
import { POSTGRES_SUBDIR } from '../embedded/cluster-home.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall upgrade-warehouse`: moves the embedded warehouse in PITWALL_DATA_DIR from a cluster
 * made by the previous PostgreSQL major version to one of this release's, keeping the old one
 * (src/db/upgrade-warehouse.ts), then applies the migrations it has pending, so that the
 * warehouse it leaves is ready to use. Safe to interrupt and run again; run on a current
 * warehouse, it says so and changes nothing but what `pitwall migrate` would.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  const config = loadConfig(ctx.env, configFlags(values));
  if (config.databaseUrl) {
    throw new UsageError(
      'upgrade-warehouse upgrades the embedded warehouse (PITWALL_DATA_DIR); a PostgreSQL server at DATABASE_URL is upgraded the usual way (pg_upgrade, or a dump and restore)',
    );
  }
  const logger = makeLogger(config, ctx);
  let report: UpgradeReport;
  try {
    report = await upgradeWarehouse({ dir: config.dataDir, logger, signal: ctx.signal });
  } catch (err) {
    if (!ctx.signal.aborted) throw err;
    logger.warn('upgrade interrupted: the new cluster is removed and the old one left as it was; run pitwall upgrade-warehouse again to upgrade');
    return EXIT.interrupted;
  }
  const { applied, ms } = await migrateWarehouse(config, logger, 'upgrade-warehouse');
  ctx.out(reportLines(report, applied, ms).join('\n'));
  return EXIT.ok;
}

function reportLines(r: UpgradeReport, applied: number, ms: number): string[] {
  const link = `${r.dir}/${POSTGRES_SUBDIR}`;
  const lines =
    r.outcome === 'current'
      ? [`the embedded warehouse in ${r.dir} already runs PostgreSQL ${r.to}: nothing to upgrade`]
      : r.outcome === 'finished'
        ? [`the embedded warehouse in ${r.dir} is upgraded to PostgreSQL ${r.to} (an earlier run had copied and checked it; its last step is done now)`]
        : [
            `upgraded the embedded warehouse in ${r.dir} from PostgreSQL ${r.from} to ${r.to} in ${(r.ms / 1000).toFixed(1)} s: ${r.tables} tables, ${r.rows} rows, each table checked against the original`,
          ];
  if (r.outcome === 'upgraded') {
    if (r.reader) lines.push(`  the read-only role pitwall_reader is made again with its password; the SQL port is unchanged`);
    if (r.leftOut.length > 0) lines.push(`  not carried (not pitwall's tables): ${r.leftOut.join(', ')}`);
    if (r.rolesLeft.length > 0) lines.push(`  roles not carried: ${r.rolesLeft.join(', ')} (make them again, then pitwall grant-readonly <role>)`);
  }
  if (applied > 0) lines.push(`  ${applied} pending migration${applied === 1 ? '' : 's'} applied in ${(ms / 1000).toFixed(1)} s: the warehouse is ready to use`);
  if (r.kept) {
    lines.push(
      `the old cluster is kept in ${r.kept}; delete it once you no longer need it`,
      `to go back: stop pitwall, move ${r.data} aside and ${r.kept} to ${r.data}${r.data === link ? '' : ` (${link} links there)`}, and run the previous pitwall release`,
    );
  }
  return lines;
}
