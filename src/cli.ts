import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';

import type { CommandContext, CommandModule } from './commands/context.js';
import { CONFIG_VARIABLES } from './config.js';
import { EXIT, PitwallError } from './errors.js';
import { exitCodesHelp } from './exit-codes-doc.js';
import { redact, secretsOf } from './secrets.js';
import { sourceKeyVariables } from './sources.js';
import { unknownVariableWarnings } from './unknown-variables.js';

/**
 * The command line: the only module that reads process.argv, installs signal handlers or sets
 * the exit code. Commands live in src/commands/ and receive a CommandContext; each is loaded
 * only when it runs, so `pitwall --help` loads neither the sync engine nor the simulator.
 */

const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  migrate: { summary: 'apply database migrations (under an advisory lock)', load: () => import('./commands/migrate.js') },
  sync: {
    summary: 'run one job once (--job full|season|live, default full) for each source (--source NAME, repeatable); --retry-set-aside also tries the scopes set aside after repeated failures; continues the last run of the job if it stopped before its end (--fresh starts afresh); prints a per-table summary, --json for one JSON object',
    load: () => import('./commands/sync.js'),
  },
  rebuild: {
    summary: 're-derive the typed tables from the kept response bodies, no upstream request (--endpoint NAME, --source NAME, repeatable; --json)',
    load: () => import('./commands/rebuild.js'),
  },
  status: { summary: 'last runs, per-endpoint state, failing scopes, recent rejects, per source (--source NAME, repeatable; --json)', load: () => import('./commands/status.js') },
  drift: {
    summary: 'how the responses loaded differ from the declared shapes: missing, unmodelled and failing fields per source and endpoint (--source NAME, --json); --suggest prints a PITWALL_SHAPES file for what it explains',
    load: () => import('./commands/drift.js'),
  },
  probe: {
    summary: 'ask the upstream for one small sample of each endpoint (at most 20 first requests, --max-requests N; writes nothing; shares the request pace in the warehouse at DATABASE_URL, or in the embedded one while its server runs) and print their shape report, per source (--source NAME, --save DIR, --json, --suggest)',
    load: () => import('./commands/probe.js'),
  },
  worker: { summary: 'run the live, season and full jobs on their cron schedules until stopped', load: () => import('./commands/worker.js') },
  simulate: {
    summary: 'serve the built-in API simulator until stopped (--port 4010 --seed 7 --scale small --today YYYY-MM-DD --key KEY --faults JSON; pitwall simulate --help lists all)',
    load: () => import('./commands/simulate.js'),
  },
  demo: { summary: 'simulator + embedded warehouse + sync in one go; prints standings and how to query (--scale --seed --today --dir)', load: () => import('./commands/demo.js') },
  sql: { summary: 'run SQL and print a table (--csv, --json, --param v, --recipe <cookbook id>)', load: () => import('./commands/sql.js') },
  'upgrade-warehouse': {
    summary: 'move an embedded warehouse made by PostgreSQL 17 (the previous release) to this release\'s PostgreSQL 18, checked table by table; keeps the old cluster beside it (postgres.pg17) and says how to go back; safe to interrupt and run again',
    load: () => import('./commands/upgrade-warehouse.js'),
  },
  'remove-warehouse': {
    summary: 'remove the embedded warehouse in PITWALL_DATA_DIR with its cluster, also one kept elsewhere (as root, under /var/lib/pitwall); --yes to do it, without it says what it would remove',
    load: () => import('./commands/remove-warehouse.js'),
  },
  'serve-sql': { summary: 'keep the embedded warehouse up and print how psql and BI tools log in, read-only (--port 5433)', load: () => import('./commands/serve-sql.js') },
  'grant-readonly': { summary: 'give a PostgreSQL role SELECT on schemas mrp and analytics, and nothing else', load: () => import('./commands/grant-readonly.js') },
  'retire-source': {
    summary: 'for a source PITWALL_SOURCES no longer names: mark its rows deleted, or with --delete remove them (--json); refused while it is configured or a run of it is running',
    load: () => import('./commands/retire-source.js'),
  },
};

/** The package's version: package.json sits one level above src/ and dist/ alike, in a checkout and in the published package. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function usage(): string {
  const commands = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(16)} ${c.summary}`)
    .join('\n');
  const vars = CONFIG_VARIABLES.map((v) => {
    const dflt = v.default !== undefined ? `default ${v.default}` : v.secret ? 'secret; environment only' : 'no default';
    return `  ${v.env.padEnd(28)} ${(v.flag ?? '').padEnd(22)} ${dflt}\n      ${v.description}`;
  }).join('\n');
  return `pitwall: mirrors the MyRacePass v2 API into PostgreSQL

Usage: pitwall <command> [options]
       pitwall --version

Commands:
${commands}

Configuration (flags override environment variables, which override defaults):
${vars}

Exit codes: (docs/commands.md says each in full)
${exitCodesHelp()}
`;
}

/**
 * What a failed command prints. An expected error names its cause and remedy (bad usage, bad
 * configuration, a warehouse that cannot be opened): its message alone, with its stack and cause
 * only at debug level. Anything else is a bug or an unforeseen failure: its stack helps.
 */
function errorText(err: unknown, debug: boolean): string {
  // At debug, the inspection alone: its first line is the message, which is then said once.
  if (err instanceof PitwallError && err.expected) return debug ? inspect(err, { depth: 6 }) : err.message;
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/** The value of `--name value` or `--name=value` in `args`; undefined when absent. */
function flagValue(args: readonly string[], name: string): string | undefined {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  const arg = args[i];
  return arg === undefined ? undefined : arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[i + 1];
}

/** `--log-level debug|trace`, else PITWALL_LOG_LEVEL: read here, as a failed command may not have parsed its config. */
function debugRequested(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  const level = flagValue(args, '--log-level') ?? env.PITWALL_LOG_LEVEL;
  return ['debug', 'trace'].includes((level ?? '').trim().toLowerCase());
}

const write = (text: string) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);

/** First SIGINT/SIGTERM aborts the command's signal (graceful stop); a second exits at once. */
function trapSignals(controller: AbortController): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received += 1;
    if (received === 1) {
      process.stderr.write(`pitwall: ${signal} received, stopping (send again to exit at once)\n`);
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

export async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  const secrets = secretsOf({
    apiKey: process.env.MRP_API_KEY,
    httpToken: process.env.PITWALL_HTTP_TOKEN,
    databaseUrl: process.env.DATABASE_URL,
    lockDatabaseUrl: process.env.PITWALL_LOCK_DATABASE_URL,
  });
  if (name === '--version' || name === '-V' || name === 'version') {
    write(`pitwall ${version()}`);
    return;
  }
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    write(usage());
    process.exitCode = name ? EXIT.ok : EXIT.usage;
    return;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`pitwall: unknown command "${name}"; see pitwall --help\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  if (args.includes('--help') || args.includes('-h')) {
    write((await command.load()).help ?? usage());
    return;
  }
  // Before the command, whose own errors may follow from the slip (a key "not set" under a misspelt name).
  const keyVariables = sourceKeyVariables(flagValue(args, '--sources') ?? process.env.PITWALL_SOURCES);
  for (const line of unknownVariableWarnings(process.env, keyVariables)) process.stderr.write(`pitwall: ${line}\n`);
  const controller = new AbortController();
  const release = trapSignals(controller);
  const ctx: CommandContext = {
    args,
    env: process.env,
    signal: controller.signal,
    out: write,
    err: (text) => void process.stderr.write(text),
    interactive: Boolean(process.stderr.isTTY),
  };
  try {
    const module = await command.load();
    process.exitCode = await module.run(ctx);
  } catch (err) {
    process.stderr.write(`pitwall: ${redact(errorText(err, debugRequested(args, process.env)), secrets)}\n`);
    process.exitCode = err instanceof PitwallError ? err.exitStatus : EXIT.failed;
  } finally {
    release();
  }
}
