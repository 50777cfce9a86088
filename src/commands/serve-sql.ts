import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';
import { ensureReaderRole } from '../embedded/reader-role.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall serve-sql [--port 5433]`: keeps the embedded warehouse's PostgreSQL server up until
 * stopped and prints how psql and BI tools log in to it, as a read-only role. The server takes
 * as many sessions as a PostgreSQL server does, also while the worker syncs into it; this
 * command only makes sure it is running and that the reader's role exists.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, port: { type: 'string' } } });
  const config = loadConfig(ctx.env, configFlags(values));
  if (config.databaseUrl) {
    throw new UsageError('serve-sql serves the embedded warehouse; with DATABASE_URL set, point psql and BI tools at that server (pitwall grant-readonly <role> makes a read-only role)');
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) < 1 || Number(values.port) > 65535) throw new UsageError('--port must be a port number');
    port = Number(values.port);
  }
  const logger = makeLogger(config, ctx);
  const warehouse = await openWarehouse(config, logger, { poolMax: 2, purpose: 'serve-sql', ...(port ? { port } : {}) });
  try {
    const actual = warehouse.server!.port;
    if (port !== undefined && actual !== port) {
      throw new UsageError(`the embedded warehouse's server is already running on port ${actual}, started by another pitwall process; connect there, or stop that process and run serve-sql --port ${port} again`);
    }
    const { role, passwordFile } = await ensureReaderRole(warehouse.pool, warehouse.dir!);
    ctx.out(
      [
        `the embedded warehouse in ${warehouse.dir} is served on 127.0.0.1:${actual}, read-only for role ${role}`,
        `  PGPASSWORD="$(cat ${passwordFile})" psql "postgres://${role}@127.0.0.1:${actual}/postgres"`,
        `  BI tools: host 127.0.0.1, port ${actual}, database postgres, user ${role}, the password in ${passwordFile}, SSL off`,
        '  as many sessions as you like, also while the worker syncs',
        'stop with Ctrl-C (the server stops once no pitwall process and no client uses it)',
      ].join('\n'),
    );
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
