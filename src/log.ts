import { createRequire } from 'node:module';

import { pino, type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';

import { REDACTED, redact } from './secrets.js';

export type Logger = PinoLogger;
export type LogLevel = Level | 'silent';

/** Fields a child logger carries so every line can be traced to its run, job and endpoint. */
export interface LogContext {
  runId?: string;
  job?: string;
  endpoint?: string;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Human-readable lines through pino-pretty instead of JSON; the CLI asks for it on a TTY. */
  pretty?: boolean;
  /** Strings that must never reach the output (the API key, the database password). */
  secrets?: readonly string[];
  /** Where lines go; stderr by default, because stdout is reserved for `--json` output. */
  destination?: DestinationStream;
}

/** Fields whose value is a credential whatever it holds, at the top level or nested. */
const SECRET_FIELDS = ['key', 'apiKey', 'password'];
const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]);

function prettyStream(): DestinationStream | undefined {
  try {
    // pino-pretty is a dev dependency: absent from a production install, where JSON is wanted.
    const require = createRequire(import.meta.url);
    const pretty = require('pino-pretty') as (options: object) => DestinationStream;
    // In-process and synchronous, so lines are not lost when the CLI exits right after logging.
    return pretty({ destination: 2, sync: true, translateTime: 'SYS:HH:MM:ss.l' });
  } catch {
    return undefined;
  }
}

/**
 * Wraps a destination so each serialized line is scrubbed of secrets before it is written.
 * Scrubbing the finished line covers what field paths cannot: messages, bindings of child
 * loggers, error messages and stacks, and values nested at any depth.
 */
function redactingStream(target: DestinationStream, secrets: readonly string[]): DestinationStream {
  if (secrets.every((s) => s.length === 0)) return target;
  return { write: (line: string) => target.write(redact(line, secrets)) };
}

/** The application logger. JSON lines on stderr unless `pretty`; secrets redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const target =
    options.destination ??
    (options.pretty ? prettyStream() : undefined) ??
    // Synchronous writes keep log order with stdout and survive process.exit in the CLI.
    pino.destination({ fd: 2, sync: true });
  return pino(
    {
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      // Files and pipes are read by people and by tools that parse dates, not epoch milliseconds;
      // pino-pretty reads an ISO time as well as a number.
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    redactingStream(target, options.secrets ?? []),
  );
}

/** A child logger carrying run/job/endpoint fields; undefined fields are left out. */
export function withContext(logger: Logger, context: LogContext): Logger {
  const bindings = Object.fromEntries(Object.entries(context).filter(([, v]) => v !== undefined));
  return logger.child(bindings);
}

/** A logger that writes nothing, for tests and library callers that do not care. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
