import { loadConfig } from '../config.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

function whole(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) throw new UsageError(`--${name} must be a whole number up to ${max}`);
  return Number(value);
}

/**
 * `pitwall serve-sql [--port 5433] [--host 127.0.0.1] [--max-connections 8] [--writable]`: serves
 * the embedded warehouse over the Postgres wire protocol until stopped, so psql and BI tools
 * attach to it. Read-only unless --writable: BI tools should not write into a mirror that the
 * next sync would contradict.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: {
      ...CONFIG_FLAG_OPTIONS,
      ...HELP,
      port: { type: 'string' },
      host: { type: 'string' },
      'max-connections': { type: 'string' },
      writable: { type: 'boolean' },
    },
  });
  const config = loadConfig(ctx.env, configFlags(values));
  if (config.databaseUrl) {
    throw new UsageError('serve-sql serves the embedded warehouse; with DATABASE_URL set, point psql and BI tools at that server');
  }
  const host = values.host ?? '127.0.0.1';
  const port = whole(values.port, 'port', 5433, 65535);
  const clients = whole(values['max-connections'], 'max-connections', 8, 100);
  const logger = makeLogger(config, ctx);
  // One connection more than the clients: pitwall's own pool keeps one.
  const warehouse = await openWarehouse(config, logger, { purpose: 'serve-sql', listen: { host, port, maxConnections: clients + 1 } });
  try {
    // Every client shares PGlite's one session, so this setting holds for all of them. It is a
    // guard against accidents, not access control: a client can SET it back.
    if (!values.writable) await warehouse.pool.query('SET default_transaction_read_only = on');
    const url = new URL(warehouse.url);
    ctx.out(
      [
        `serving the embedded warehouse in ${warehouse.dir} on ${url.host}${values.writable ? '' : ' (read-only)'}`,
        `  psql "${warehouse.url}"`,
        `  BI tools: host ${url.hostname}, port ${url.port}, database postgres, user postgres, no password, SSL off`,
        `  up to ${clients} clients at once; they share one database session (see the README)`,
        'stop with Ctrl-C',
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
