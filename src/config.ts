import { isIP } from 'node:net';

import { z } from 'zod';

import { ConfigError, type ConfigIssue } from './api/errors.js';
import { cronProblem } from './cron/validate.js';
import { ENDPOINTS } from './endpoints/registry.js';
import { maskUrl, secretsOf } from './secrets.js';
import { shapeCatalog } from './shapes/catalog.js';
import { loadShapesFile, ShapesFileError } from './shapes/file.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

// Node runs a timer longer than 2^31-1 ms after 1 ms instead (TimeoutOverflowWarning), so a huge
// timeout would silently become an instant one.
const MAX_TIMER_MS = 2_147_483_647;

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const httpUrl = z
  .string()
  .trim()
  .refine((s) => {
    if (!URL.canParse(s)) return false;
    const url = new URL(s);
    // Paths and parameters are appended to it, so a query or fragment would end up mid-URL.
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
  })
  .transform((s) => s.replace(/\/+$/, ''));

const postgresUrl = z
  .string()
  .trim()
  .refine((s) => URL.canParse(s) && ['postgres:', 'postgresql:'].includes(new URL(s).protocol));

// Five fields (minute-first) or six (seconds-first), as node-cron reads them, each value in its
// field's range: node-cron would throw at start-up on `0 25 * * *` and read `*/61` as hourly.
// The issue's message is the problem itself; loadConfig puts it after the expected form.
const cron = z
  .string()
  .trim()
  .superRefine((s, ctx) => {
    const problem = cronProblem(s);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, params: { detail: true } });
  });

const timeZone = z
  .string()
  .trim()
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  });

// Read, checked against the endpoint declarations and compiled here, once: every command that
// loads its config has the overrides (or a one-line refusal) before it does anything else.
const shapesFile = z
  .string()
  .trim()
  .min(1)
  .transform((path, ctx) => {
    try {
      return loadShapesFile(path, shapeCatalog(ENDPOINTS));
    } catch (err) {
      if (!(err instanceof ShapesFileError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message, params: { detail: true } });
      return z.NEVER;
    }
  });

// An IP address (IPv6 with or without its brackets, which listen() does not take) or a host name.
const listenHost = z
  .string()
  .trim()
  .transform((s) => s.replace(/^\[(.*)\]$/, '$1'))
  .refine((s) => isIP(s) !== 0 || /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(s));

// Requests per second; 0 = unlimited.
const rate = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/)
  .transform(Number);

/**
 * PITWALL_GLOBAL_MAX_RPS when unset, in keys at PITWALL_MAX_RPS: four, so that a few sources go
 * at their full rate while more workers or more sources cannot multiply the load on the upstream
 * (one key alone never meets it). Derived rather than fixed, so PITWALL_MAX_RPS=0 (unlimited, as
 * against a simulator) stays unlimited instead of meeting a cap nobody set.
 */
const GLOBAL_RATE_IN_KEYS = 4;

/** Every setting: its zod parser from the string form. Defaults live in VARIABLES below. */
const settings = z.object({
  apiBaseUrl: httpUrl,
  apiKey: z.string().trim().min(1).optional(),
  databaseUrl: postgresUrl.optional(),
  lockDatabaseUrl: postgresUrl.optional(),
  concurrency: int(1, 64),
  maxRps: rate,
  globalMaxRps: rate.optional(),
  requestTimeoutMs: int(1, MAX_TIMER_MS),
  maxAttempts: int(1, 100),
  maxRetryWaitMs: int(0, MAX_TIMER_MS),
  retryBaseMs: int(1, 30_000),
  maxConsecutiveFailures: int(1, 1_000_000),
  maxBodyBytes: int(1024),
  maxDecodedBytes: int(1024),
  maxBytesInFlight: int(0),
  setAsideHours: int(0, 24 * 365),
  continueHours: int(0, 24 * 365),
  logLevel: z.string().trim().toLowerCase().pipe(z.enum(LOG_LEVELS)),
  settleDays: int(0),
  shutdownTimeoutMs: int(0, MAX_TIMER_MS),
  httpPort: int(0, 65535).optional(),
  httpHost: listenHost,
  httpToken: z.string().trim().min(16).optional(),
  cronLive: cron,
  cronSeason: cron,
  cronFull: cron,
  catchUp: z.string().trim().toLowerCase().pipe(z.enum(['on', 'off'])),
  workerJobs: int(1, 1_000),
  dbPoolSize: int(2, 100),
  dbDeadlineMs: int(1_000, MAX_TIMER_MS),
  timezone: timeZone,
  dataDir: z.string().trim().min(1),
  sqlPort: int(1, 65535).optional(),
  keepResponses: int(1, 1_000),
  shapes: shapesFile.optional(),
  sourcesFile: z.string().trim().min(1).optional(),
});

/** The settings with the one default that depends on another setting filled in. */
const schema = settings.transform((c) => ({ ...c, globalMaxRps: c.globalMaxRps ?? GLOBAL_RATE_IN_KEYS * c.maxRps }));

export type Config = Readonly<z.output<typeof schema>>;
export type ConfigKey = keyof Config;
/** Settings with no default; a command that needs one passes it in `require`. */
export type OptionalKey = 'apiKey' | 'databaseUrl' | 'lockDatabaseUrl' | 'httpPort' | 'httpToken' | 'sqlPort' | 'shapes' | 'sourcesFile';
export type ConfigWith<R extends OptionalKey> = Config & { readonly [K in R]: NonNullable<Config[K]> };

export interface ConfigVariable {
  key: ConfigKey;
  env: string;
  /** The command-line flag the CLI maps to this setting; none for secrets (`ps` shows argv). */
  flag: string | undefined;
  /** As text, exactly as it would be written in the environment. */
  default: string | undefined;
  description: string;
  /** Phrase completing "expected …" in an error message. */
  expected: string;
  /** Said after "required, not set" to whoever meets the setting first: what it is, and how to go without. */
  whenMissing?: string;
  secret?: boolean;
  url?: boolean;
}

const VARIABLES: Record<ConfigKey, Omit<ConfigVariable, 'key'>> = {
  apiBaseUrl: {
    env: 'MRP_API_BASE_URL',
    flag: '--api-base-url',
    default: 'https://api.myracepass.com',
    url: true,
    description: 'Upstream base URL, without /v2 (a simulator URL in tests).',
    expected: 'an http(s) URL without query or fragment',
  },
  apiKey: {
    env: 'MRP_API_KEY',
    flag: undefined,
    default: undefined,
    secret: true,
    description: 'MyRacePass API key. Required by commands that call the upstream; never logged.',
    expected: 'a non-empty key',
    whenMissing: "the MyRacePass API key of your site, which MyRacePass issues; `npm run demo` and `pitwall simulate` (the API's simulator) need none",
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: '--database-url',
    default: undefined,
    url: true,
    description: 'PostgreSQL connection URL; unset = the embedded warehouse: a PostgreSQL server pitwall runs on PITWALL_DATA_DIR.',
    expected: 'a postgres:// or postgresql:// URL',
  },
  lockDatabaseUrl: {
    env: 'PITWALL_LOCK_DATABASE_URL',
    flag: '--lock-database-url',
    default: undefined,
    url: true,
    description:
      'Where the lock session (the one connection holding a process\'s session advisory locks) connects when DATABASE_URL goes through a transaction-pooling PgBouncer or similar, where those locks do not hold: the same database, directly or through a session-mode pool (docs/warehouse.md). Unset = DATABASE_URL.',
    expected: 'a postgres:// or postgresql:// URL',
  },
  concurrency: {
    env: 'PITWALL_CONCURRENCY',
    flag: '--concurrency',
    default: '4',
    description: 'Upstream requests in flight at once.',
    expected: 'an integer from 1 to 64',
  },
  maxRps: {
    env: 'PITWALL_MAX_RPS',
    flag: '--max-rps',
    default: '5',
    description: 'Upstream requests started per second, evenly spaced; 0 = unlimited.',
    expected: 'a number >= 0',
  },
  globalMaxRps: {
    env: 'PITWALL_GLOBAL_MAX_RPS',
    flag: '--global-max-rps',
    default: undefined,
    description: `Upstream requests started per second by all sources together, across every process sharing the warehouse, evenly spaced; 0 = no global cap. Unset: ${GLOBAL_RATE_IN_KEYS} x PITWALL_MAX_RPS (20 at its default: four sources at their full rate; none when PITWALL_MAX_RPS is 0).`,
    expected: 'a number >= 0',
  },
  requestTimeoutMs: {
    env: 'PITWALL_REQUEST_TIMEOUT_MS',
    flag: '--request-timeout-ms',
    default: '30000',
    description: 'Timeout of one upstream attempt (headers and body), in ms.',
    expected: `an integer from 1 to ${MAX_TIMER_MS}`,
  },
  maxAttempts: {
    env: 'PITWALL_MAX_ATTEMPTS',
    flag: '--max-attempts',
    default: '5',
    description: 'Attempts per upstream request, the first included.',
    expected: 'an integer from 1 to 100',
  },
  maxRetryWaitMs: {
    env: 'PITWALL_MAX_RETRY_WAIT_MS',
    flag: '--max-retry-wait-ms',
    default: '60000',
    description: 'Total time one request may spend waiting between retries, in ms; 0 = no retries.',
    expected: `an integer from 0 to ${MAX_TIMER_MS}`,
  },
  retryBaseMs: {
    env: 'PITWALL_RETRY_BASE_MS',
    flag: '--retry-base-ms',
    default: '500',
    description: 'Ceiling of the first retry\'s backoff, in ms; it doubles per attempt up to 30 s, with full jitter.',
    expected: 'an integer from 1 to 30000',
  },
  maxConsecutiveFailures: {
    env: 'PITWALL_MAX_CONSECUTIVE_FAILURES',
    flag: '--max-consecutive-failures',
    default: '20',
    description: 'Upstream requests failing in a row (each after its retries) before a run stops as failed instead of hammering a down upstream.',
    expected: 'an integer from 1 to 1000000',
  },
  maxBodyBytes: {
    env: 'PITWALL_MAX_BODY_BYTES',
    flag: '--max-body-bytes',
    default: String(32 * 1024 * 1024),
    description: 'Largest response body pitwall reads, in bytes as received (compressed or not); a larger one fails its scope, unretried, and reading stops at the limit. 32 MiB: seven times the largest body of the simulator\'s large world (docs/reliability.md).',
    expected: 'an integer >= 1024',
  },
  maxDecodedBytes: {
    env: 'PITWALL_MAX_DECODED_BYTES',
    flag: '--max-decoded-bytes',
    default: String(32 * 1024 * 1024),
    description: 'Largest response body after decompression, in bytes; decompression stops at the limit (a compressed bomb costs no more), and the scope fails, unretried.',
    expected: 'an integer >= 1024',
  },
  maxBytesInFlight: {
    env: 'PITWALL_MAX_BYTES_IN_FLIGHT',
    flag: '--max-bytes-in-flight',
    default: String(96 * 1024 * 1024),
    description: 'Decoded response bytes the whole process holds at once, from the first byte until the body is loaded, across every run and source; a body that does not fit waits, its connection paused. 0 = no budget.',
    expected: 'an integer >= 0',
  },
  setAsideHours: {
    env: 'PITWALL_SET_ASIDE_HOURS',
    flag: '--set-aside-hours',
    default: '24',
    description: 'A scope that fails the same way in two runs in a row (a body too large or too slow, a 404, a body that is not JSON...) is set aside: runs skip it and try it again once this many hours have passed; `pitwall sync --retry-set-aside` tries it now. Passing faults (a timeout, a reset, a body cut short, 5xx, 429) take three runs in a row; a refused key (401, 403) and a run that ended with the upstream down never count. 0 = never set aside.',
    expected: 'an integer from 0 to 8760',
  },
  continueHours: {
    env: 'PITWALL_CONTINUE_HOURS',
    flag: '--continue-hours',
    default: '24',
    description: 'A run of a job stopped before the end of its walk (a stop, a crash, a lost lease, a database or upstream outage) is continued by the next run of the same job and source: that one asks only for the scopes the stopped run had not finished. Not when the stopped run began more than this many hours ago: a fresh run starts. `pitwall sync --fresh` always starts afresh. 0 = never continue.',
    expected: 'an integer from 0 to 8760',
  },
  logLevel: {
    env: 'PITWALL_LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    description: `Log level: ${LOG_LEVELS.join(', ')}.`,
    expected: `one of ${LOG_LEVELS.join(', ')}`,
  },
  settleDays: {
    env: 'PITWALL_SETTLE_DAYS',
    flag: '--settle-days',
    default: '14',
    description: 'Days after an event until its results count as final (the frequent jobs stop re-fetching).',
    expected: 'an integer >= 0',
  },
  shutdownTimeoutMs: {
    env: 'PITWALL_SHUTDOWN_TIMEOUT_MS',
    flag: '--shutdown-timeout-ms',
    default: '30000',
    description: 'After a first SIGTERM/SIGINT, how long in-flight work may run before it is aborted, in ms.',
    expected: `an integer from 0 to ${MAX_TIMER_MS}`,
  },
  httpPort: {
    env: 'PITWALL_HTTP_PORT',
    flag: '--http-port',
    default: undefined,
    description: 'Port of the worker\'s HTTP endpoint (health, metrics, status page); unset = no endpoint.',
    expected: 'an integer from 0 to 65535',
  },
  httpHost: {
    env: 'PITWALL_HTTP_HOST',
    flag: '--http-host',
    default: '127.0.0.1',
    description: 'Address the worker\'s HTTP endpoint listens on: the loopback interface by default; 0.0.0.0 (or ::) for every interface, as in a container whose port is published (then set PITWALL_HTTP_TOKEN).',
    expected: 'an IP address or host name, e.g. 127.0.0.1, 0.0.0.0 or ::',
  },
  httpToken: {
    env: 'PITWALL_HTTP_TOKEN',
    flag: undefined,
    default: undefined,
    secret: true,
    description: 'When set, the status page, /status.json and /metrics need `Authorization: Bearer <token>`; /healthz stays open. Never logged.',
    expected: 'a token of at least 16 characters',
  },
  cronLive: {
    env: 'PITWALL_CRON_LIVE',
    flag: '--cron-live',
    default: '*/5 * * * *',
    description: 'Cron schedule of the live job (recent and running events).',
    expected: 'a cron expression of 5 or 6 fields',
  },
  cronSeason: {
    env: 'PITWALL_CRON_SEASON',
    flag: '--cron-season',
    default: '0 * * * *',
    description: 'Cron schedule of the season job (the current seasons\' unsettled data).',
    expected: 'a cron expression of 5 or 6 fields',
  },
  cronFull: {
    env: 'PITWALL_CRON_FULL',
    flag: '--cron-full',
    default: '0 3 * * *',
    description: 'Cron schedule of the full sync.',
    expected: 'a cron expression of 5 or 6 fields',
  },
  catchUp: {
    env: 'PITWALL_CATCH_UP',
    flag: '--catch-up',
    default: 'on',
    description: 'on: at start the worker runs each job that is behind its schedule (full first), backing off after failed catch-ups; off: it waits for the schedules.',
    expected: 'on or off',
  },
  workerJobs: {
    env: 'PITWALL_WORKER_JOBS',
    flag: '--worker-jobs',
    default: '100',
    description: 'Runs one worker has going at once, across the sources it owns (each source is owned by one worker at a time; its runs wait mostly on its rate, not on the database).',
    expected: 'an integer from 1 to 1000',
  },
  dbPoolSize: {
    env: 'PITWALL_DB_POOL_SIZE',
    flag: '--db-pool-size',
    default: '10',
    description: 'Database connections a worker or sync borrows from at most, whatever the number of sources (a worker holds one more, for its locks).',
    expected: 'an integer from 2 to 100',
  },
  dbDeadlineMs: {
    env: 'PITWALL_DB_DEADLINE_MS',
    flag: '--db-deadline-ms',
    default: '120000',
    description: 'How long one database transaction may take before its connection is taken for dead, destroyed and the transaction run again on a fresh one (a link gone half-open answers nothing, and TCP alone gives up after about 15 minutes).',
    expected: 'an integer from 1000',
  },
  timezone: {
    env: 'PITWALL_TIMEZONE',
    flag: '--timezone',
    default: 'UTC',
    description: 'IANA time zone the cron schedules are read in.',
    expected: 'an IANA time zone such as UTC or America/Chicago',
  },
  dataDir: {
    env: 'PITWALL_DATA_DIR',
    flag: '--data-dir',
    default: './.pitwall',
    description: 'Directory for pitwall\'s local files: the embedded warehouse\'s data, password and server log when DATABASE_URL is unset.',
    expected: 'a non-empty path',
  },
  sqlPort: {
    env: 'PITWALL_SQL_PORT',
    flag: '--sql-port',
    default: undefined,
    description: 'Port of the embedded warehouse\'s PostgreSQL server on 127.0.0.1, for psql and BI tools; unset = the port it had last time (a free one the first time).',
    expected: 'an integer from 1 to 65535',
  },
  keepResponses: {
    env: 'PITWALL_KEEP_RESPONSES',
    flag: '--keep-responses',
    default: '1',
    description: 'Versions of each scope\'s response body kept in pitwall.responses (compressed) for `pitwall rebuild`; older ones are deleted.',
    expected: 'an integer from 1 to 1000',
  },
  shapes: {
    env: 'PITWALL_SHAPES',
    flag: '--shapes',
    default: undefined,
    description: 'A JSON file of aliases and coercions that adjust the declared response shapes without a build (docs/shapes.md); `pitwall drift --suggest` writes one. Applies to sync, rebuild, probe and drift.',
    expected: 'a readable overrides file (docs/shapes.md)',
  },
  sourcesFile: {
    env: 'PITWALL_SOURCES',
    flag: '--sources',
    default: undefined,
    description: 'A JSON file naming several sources (sites, one API key each) to load into one warehouse; unset = MRP_API_KEY alone, as the source `default`. See "Several sites".',
    expected: 'a path to a sources file',
  },
};

/** Every setting with its variable, flag, default and description, for `--help` and docs/configuration.md. */
export const CONFIG_VARIABLES: readonly Readonly<ConfigVariable>[] = Object.freeze(
  (Object.keys(VARIABLES) as ConfigKey[]).map((key) => Object.freeze({ key, ...VARIABLES[key] })),
);

/** Flag values by setting; the secrets have none, so they never have to appear in argv. */
export type ConfigFlags = Partial<Record<Exclude<ConfigKey, 'apiKey' | 'httpToken'>, string | number | undefined>>;

export interface LoadConfigOptions<R extends OptionalKey> {
  /** Settings this command cannot run without, e.g. `['apiKey', 'databaseUrl']` for sync. */
  require?: readonly R[];
}

/** How a bad value is quoted in an error: never a secret, never a URL password. */
function shown(variable: ConfigVariable, raw: string): string {
  if (variable.secret) return '[redacted]';
  const text = variable.url ? maskUrl(raw) : raw;
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

/**
 * Reads every setting once: flags override the environment, which overrides the defaults.
 * An empty variable counts as unset (compose files often pass `VAR=`). Returns a frozen object;
 * throws one ConfigError listing every bad or missing value.
 */
export function loadConfig<R extends OptionalKey = never>(
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags = {},
  options: LoadConfigOptions<R> = {},
): ConfigWith<R> {
  const raw: Partial<Record<ConfigKey, string>> = {};
  const source: Partial<Record<ConfigKey, string>> = {};
  for (const variable of CONFIG_VARIABLES) {
    const flagValue = variable.key === 'apiKey' || variable.key === 'httpToken' ? undefined : flags[variable.key];
    const envValue = env[variable.env];
    if (flagValue !== undefined && String(flagValue) !== '') {
      raw[variable.key] = String(flagValue);
      source[variable.key] = variable.flag ?? variable.env;
    } else if (envValue !== undefined && envValue !== '') {
      raw[variable.key] = envValue;
      source[variable.key] = variable.env;
    } else if (variable.default !== undefined) {
      raw[variable.key] = variable.default;
      source[variable.key] = variable.env;
    }
  }

  const issues: ConfigIssue[] = [];
  const result = schema.safeParse(raw);
  const seen = new Set<string>();
  for (const issue of result.success ? [] : result.error.issues) {
    const key = issue.path[0] as ConfigKey;
    if (seen.has(key)) continue;
    seen.add(key);
    const variable = CONFIG_VARIABLES.find((v) => v.key === key);
    if (!variable) continue;
    const detail = issue.code === 'custom' && issue.params?.detail === true ? issue.message : undefined;
    issues.push({
      variable: source[key] ?? variable.env,
      message:
        detail !== undefined
          ? `expected ${variable.expected} (${raw[key]?.trim() ?? ''}: ${detail})`
          : `expected ${variable.expected}, got ${shown(variable, raw[key] ?? '')}`,
    });
  }
  for (const key of options.require ?? []) {
    const variable = CONFIG_VARIABLES.find((v) => v.key === key);
    if (variable && raw[key] === undefined) {
      issues.push({ variable: variable.env, message: ['required, not set', variable.whenMissing].filter(Boolean).join(': ') });
    }
  }
  if (result.success && result.data.lockDatabaseUrl !== undefined && result.data.databaseUrl === undefined) {
    // The embedded warehouse is a local server of pitwall's own, and its locks live in it.
    issues.push({
      variable: source.lockDatabaseUrl ?? 'PITWALL_LOCK_DATABASE_URL',
      message: 'needs DATABASE_URL: it is a second way into the warehouse there, for the lock session; the embedded warehouse needs none',
    });
  }
  if (issues.length > 0 || !result.success) throw new ConfigError(issues);
  // Every value is a primitive, so freezing the top level freezes the whole config.
  return Object.freeze(result.data) as ConfigWith<R>;
}

/**
 * The secret strings a config holds (the API key, the HTTP token, the database passwords), for the
 * logger's and the errors' redaction.
 */
export function configSecrets(config: Config): string[] {
  return secretsOf(config);
}
