import { parseArgs, type ParseArgsConfig } from 'node:util';

import { ConfigError } from './api/errors.js';
import { CONFIG_VARIABLES, configSecrets, loadConfig, type Config, type ConfigFlags } from './config.js';
import { createPool } from './db/pool.js';
import { createLogger, type Logger } from './log.js';
import { redact } from './secrets.js';
import { JOB_NAMES, type JobName } from './sync/jobs.js';

/**
 * The command line. The only module that reads argv, installs signal handlers or sets the
 * process exit code; everything below it takes values and AbortSignals. Each command loads its
 * modules when it runs, so `pitwall --help` does not load the sync engine or the simulator.
 */

export const EXIT = { ok: 0, failed: 1, usage: 2, skipped: 3, interrupted: 130 } as const;

class UsageError extends Error {
  override readonly name = 'UsageError';
}

const CONFIG_FLAG_OPTIONS = Object.fromEntries(
  CONFIG_VARIABLES.filter((v) => v.flag).map((v) => [v.flag!.slice(2), { type: 'string' as const }]),
);

function configFlags(values: Record<string, unknown>): ConfigFlags {
  const flags: Record<string, string> = {};
  for (const v of CONFIG_VARIABLES) {
    const value = v.flag ? values[v.flag.slice(2)] : undefined;
    if (typeof value === 'string') flags[v.key] = value;
  }
  return flags as ConfigFlags;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** parseArgs, with its errors (unknown flag, missing value) reported as usage errors. */
function parse<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function usage(): string {
  const vars = CONFIG_VARIABLES.map(
    (v) => `  ${v.env.padEnd(28)} ${(v.flag ?? '').padEnd(22)} ${v.default !== undefined ? `default ${v.default}` : v.secret ? 'secret, env only' : ''}\n      ${v.description}`,
  ).join('\n');
  return `pitwall — mirrors the MyRacePass v2 API into PostgreSQL

Usage: pitwall <command> [options]

Commands:
  migrate                 apply database migrations (under an advisory lock)
  sync [--job full] [--json]
                          run one job once and print a per-table summary (--json: one JSON object)
  status [--json]         last runs, per-endpoint state, failing scopes, recent rejects
  simulate [--port 4010] [--seed 7] [--scale small] [--today YYYY-MM-DD] [--key KEY]
                          serve the built-in simulator of the API until stopped

Configuration (flags override environment variables, which override defaults):
${vars}

Exit codes: 0 success; 1 the run or command failed; 2 bad usage or configuration;
3 skipped because another process holds the job's lock; 130 interrupted by a signal.
`;
}

/** First signal: abort gracefully. Second: exit at once. */
function onSignals(controller: AbortController, logger: Logger | null): () => void {
  let count = 0;
  const handler = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      logger?.warn({ signal }, 'stopping: finishing in-flight work (send again to exit at once)');
      controller.abort(new Error(`received ${signal}`));
    } else {
      process.exit(EXIT.interrupted);
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

function makeLogger(config: Config): Logger {
  return createLogger({ level: config.logLevel, pretty: process.stderr.isTTY, secrets: configSecrets(config) });
}

async function cmdMigrate(args: string[]): Promise<number> {
  const { values } = parse({ args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP } });
  if (values.help) return print(usage());
  const config = loadConfig(process.env, configFlags(values), { require: ['databaseUrl'] });
  const logger = makeLogger(config);
  const { migrateDatabase } = await import('./db/migrate.js');
  const pool = createPool(config.databaseUrl, { max: 2, logger });
  try {
    await migrateDatabase(pool);
    logger.info('migrations applied');
    return EXIT.ok;
  } finally {
    await pool.end();
  }
}

async function cmdSync(args: string[]): Promise<number> {
  const { values } = parse({
    args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, job: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (values.help) return print(usage());
  const job = (values.job ?? 'full') as JobName;
  if (!JOB_NAMES.includes(job)) throw new UsageError(`--job must be one of ${JOB_NAMES.join(', ')}`);
  const config = loadConfig(process.env, configFlags(values), { require: ['apiKey', 'databaseUrl'] });
  const logger = makeLogger(config);
  const { runSync } = await import('./sync/run.js');
  const { summaryJson, summaryText } = await import('./commands/sync-report.js');
  const pool = createPool(config.databaseUrl, { max: config.concurrency + 2, logger });
  const controller = new AbortController();
  const off = onSignals(controller, logger);
  try {
    const summary = await runSync({ pool, config, logger }, { job, trigger: 'manual', signal: controller.signal });
    print(values.json ? summaryJson(summary) : summaryText(summary));
    if (summary.status === 'succeeded') return EXIT.ok;
    if (summary.status === 'skipped') return EXIT.skipped;
    if (summary.status === 'interrupted') return EXIT.interrupted;
    return EXIT.failed;
  } finally {
    off();
    await pool.end();
  }
}

async function cmdStatus(args: string[]): Promise<number> {
  const { values } = parse({ args, options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' } } });
  if (values.help) return print(usage());
  const config = loadConfig(process.env, configFlags(values), { require: ['databaseUrl'] });
  const { loadStatus, statusText } = await import('./commands/status.js');
  const pool = createPool(config.databaseUrl, { max: 1, logger: makeLogger(config) });
  try {
    const report = await loadStatus(pool);
    print(values.json ? JSON.stringify(report) : statusText(report));
    return EXIT.ok;
  } finally {
    await pool.end();
  }
}

async function cmdSimulate(args: string[]): Promise<number> {
  const { values } = parse({
    args,
    options: {
      ...HELP,
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      scale: { type: 'string' },
      today: { type: 'string' },
      key: { type: 'string' },
    },
  });
  if (values.help) return print(usage());
  const num = (s: string | undefined, name: string) => {
    if (s === undefined) return undefined;
    if (!/^\d+$/.test(s)) throw new UsageError(`--${name} must be a whole number`);
    return Number(s);
  };
  const { startSimulator } = await import('./simulator/server.js');
  const sim = await startSimulator({
    port: num(values.port, 'port') ?? 4010,
    ...(values.host ? { host: values.host } : {}),
    ...(values.seed !== undefined ? { seed: num(values.seed, 'seed') } : {}),
    ...(values.scale ? { scale: values.scale as 'tiny' } : {}),
    ...(values.today ? { today: values.today } : {}),
    ...(values.key ? { key: values.key } : {}),
  });
  print(`simulator listening\n  MRP_API_BASE_URL=${sim.url}\n  MRP_API_KEY=${sim.key}\n  world: ${JSON.stringify(sim.world.summary())}`);
  const controller = new AbortController();
  const off = onSignals(controller, null);
  await new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
  off();
  await sim.close();
  return EXIT.ok;
}

function print(text: string): number {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return EXIT.ok;
}

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  migrate: cmdMigrate,
  sync: cmdSync,
  status: cmdStatus,
  simulate: cmdSimulate,
};

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const secrets = [process.env.MRP_API_KEY ?? ''].filter(Boolean);
  try {
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      print(usage());
      process.exitCode = command ? EXIT.ok : EXIT.usage;
      return;
    }
    const run = COMMANDS[command];
    if (!run) throw new UsageError(`unknown command "${command}"; see pitwall --help`);
    process.exitCode = await run(rest);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`pitwall: ${redact(err.message, secrets)}\n`);
      process.exitCode = EXIT.usage;
      return;
    }
    process.stderr.write(`pitwall: ${redact(err instanceof Error ? (err.stack ?? err.message) : String(err), secrets)}\n`);
    process.exitCode = EXIT.failed;
  }
}
