import { parseArgs, type ParseArgsConfig } from 'node:util';

import { CONFIG_VARIABLES, configSecrets, type Config, type ConfigFlags } from '../config.js';
import { EXIT, PitwallError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { machineToday } from '../simulator/world/today.js';

// Declared beside the error base, whose exit statuses they are; commands import them from here.
export { EXIT };

/**
 * What the CLI hands a command: its arguments, the environment, an AbortSignal that fires on the
 * first SIGINT/SIGTERM, and where to write. Commands never touch `process` themselves.
 */
export interface CommandContext {
  args: string[];
  env: Readonly<Record<string, string | undefined>>;
  signal: AbortSignal;
  out: (text: string) => void;
  /** Whether stderr is a terminal: pretty logs and live progress there, JSON lines otherwise. */
  interactive: boolean;
  /** Writes to stderr as is, no newline added: the live progress line redraws itself with it. */
  err?: (text: string) => void;
}

export interface CommandModule {
  run(ctx: CommandContext): Promise<number>;
  /** `pitwall <command> --help` for a command with options of its own; the global help otherwise. */
  help?: string;
}

/** A bad command line: an unknown flag, a missing or malformed value. */
export class UsageError extends PitwallError {
  override readonly name = 'UsageError';
  readonly code = 'usage';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;
}

export const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/** A `--flag` for every configuration variable that has one (the API key has none: argv is visible in `ps`). */
export const CONFIG_FLAG_OPTIONS = Object.fromEntries(
  CONFIG_VARIABLES.filter((v) => v.flag).map((v) => [v.flag!.slice(2), { type: 'string' as const }]),
);

export function configFlags(values: Record<string, unknown>): ConfigFlags {
  const flags: Record<string, string> = {};
  for (const v of CONFIG_VARIABLES) {
    const value = v.flag ? values[v.flag.slice(2)] : undefined;
    if (typeof value === 'string') flags[v.key] = value;
  }
  return flags as ConfigFlags;
}

/** parseArgs, with its errors (unknown flag, missing value) reported as usage errors. */
export function parse<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The logger of a command; `secrets` adds texts to mask beyond the config's own (the sources' keys). */
export function makeLogger(config: Config, ctx: CommandContext, secrets: readonly string[] = []): Logger {
  return createLogger({ level: config.logLevel, pretty: ctx.interactive, secrets: [...configSecrets(config), ...secrets] });
}

/** `--source NAME`, repeatable: the sources a command works for (all when none is named). */
export const SOURCE_OPTION = { source: { type: 'string', multiple: true } } as const;

/** `--today YYYY-MM-DD` of `simulate` and `demo`: the simulated world's today, the machine's date unless given. */
export function worldToday(value: string | undefined): string {
  if (value === undefined) return machineToday();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new UsageError('--today must be a date, YYYY-MM-DD');
  return value;
}
