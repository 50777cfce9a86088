import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { ensureReaderRole } from '../embedded/reader-role.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { untilAborted } from './until-aborted.js';

/**
 * `pitwall serve-sql [--sql-port 5433]`: keeps the embedded warehouse's PostgreSQL server up
 * until stopped and prints how psql and BI tools log in to it, as a read-only role. The server
 * takes as many sessions as a PostgreSQL server does, also while the worker syncs into it; this
 * command only makes sure it is running, that the reader's role exists, and that the server has
 * an owner for as long as the command runs. `--port` is the older name of `--sql-port`.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, port: { type: 'string' } } });
  const sqlPort = (values as Record<string, unknown>)['sql-port'] as string | undefined;
  if (values.port !== undefined && sqlPort !== undefined && values.port !== sqlPort) {
    throw new UsageError('--port is another name for --sql-port: give one of them');
  }
  if (values.port !== undefined && !/^\d+$/.test(values.port)) throw new UsageError('--port must be a port number');
  const config = loadConfig(ctx.env, configFlags({ ...values, 'sql-port': sqlPort ?? values.port }));
  if (config.databaseUrl) {
    throw new UsageError('serve-sql serves the embedded warehouse; with DATABASE_URL set, point psql and BI tools at that server (pitwall grant-readonly <role> makes a read-only role)');
  }
  const logger = makeLogger(config, ctx);
  const warehouse = await openWarehouse(config, logger, { poolMax: 2, purpose: 'serve-sql' });
  try {
    const port = warehouse.server!.port;
    const { role, passwordFile } = await ensureReaderRole(warehouse.pool, warehouse.dir!);
    ctx.out(
      [
        `the embedded warehouse in ${warehouse.dir} is served on 127.0.0.1:${port}, read-only for role ${role}`,
        `  PGPASSWORD="$(cat ${passwordFile})" psql "postgres://${role}@127.0.0.1:${port}/postgres"`,
        `  BI tools: host 127.0.0.1, port ${port}, database postgres, user ${role}, the password in ${passwordFile}, SSL off`,
        '  as many sessions as you like, also while the worker syncs',
        'stop with Ctrl-C (the server stops once no pitwall process and no client uses it)',
      ].join('\n'),
    );
    await untilAborted(ctx.signal);
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
