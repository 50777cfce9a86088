import { readFileSync } from 'node:fs';

import { z } from 'zod';

import { ConfigError } from './api/errors.js';
import { loadConfig, type Config } from './config.js';
import { cronProblem } from './cron/validate.js';
import { DEFAULT_SOURCE } from './db/schema/columns.js';
import { ENDPOINTS } from './endpoints/registry.js';
import { jsonErrorPhrase } from './json-error-place.js';
import { shapeCatalog } from './shapes/catalog.js';
import { loadShapesFile, ShapesFileError } from './shapes/file.js';

/**
 * One source: one API key (one MyRacePass site) and the settings its runs use. `config` is the
 * global configuration with the source's own key and overrides laid over it, so a run of the
 * source needs nothing else.
 */
export interface Source extends SourceSettings {
  config: Config & { readonly apiKey: string };
}

/**
 * A source as a command that sends nothing upstream sees it (`status`, `drift`, `rebuild`): its
 * settings, and its key only when it could be read (rebuild masks a key found in an old kept body).
 */
export interface SourceSettings {
  name: string;
  config: Config;
}

/** A source's name: it goes into every key of the warehouse, lock ids, log lines and metric labels. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

const cronFields = z.strictObject({ full: z.string().optional(), season: z.string().optional(), live: z.string().optional() });

const sourceSchema = z
  .strictObject({
    name: z.string().regex(NAME, 'expected lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)'),
    keyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name').optional(),
    keyFile: z.string().min(1).optional(),
    baseUrl: z.string().optional(),
    maxRps: z.number().min(0).optional(),
    concurrency: z.number().int().min(1).max(64).optional(),
    cron: cronFields.optional(),
    shapes: z.string().min(1).optional(),
  })
  .refine((s) => (s.keyEnv === undefined) !== (s.keyFile === undefined), 'expected exactly one of keyEnv and keyFile');

const fileSchema = z.strictObject({ sources: z.array(sourceSchema).min(1).max(1000) });

type SourceEntry = z.output<typeof sourceSchema>;

/** `sources[1].keyEnv`, from a zod issue path. */
const where = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p)), '');

/** A source's key, from the variable or file it names; never part of a message. */
function readKey(entry: SourceEntry, env: Readonly<Record<string, string | undefined>>): string {
  if (entry.keyEnv !== undefined) {
    const key = env[entry.keyEnv]?.trim();
    if (!key) throw new Error(`keyEnv: ${entry.keyEnv} is not set`);
    return key;
  }
  let text: string;
  try {
    text = readFileSync(entry.keyFile as string, 'utf8');
  } catch (err) {
    throw new Error(`keyFile: cannot read ${entry.keyFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const key = text.trim();
  if (!key) throw new Error(`keyFile: ${entry.keyFile} is empty`);
  return key;
}

/**
 * The global configuration with one source's settings laid over it, parsed by the same rules as
 * the environment (so `maxRps`, `baseUrl` and the cron fields are checked exactly as
 * PITWALL_MAX_RPS, MRP_API_BASE_URL and PITWALL_CRON_* are).
 */
function sourceConfig(entry: SourceEntry, key: string | undefined, config: Config): Config {
  const problems: string[] = [];
  for (const [job, expr] of Object.entries(entry.cron ?? {})) {
    const problem = expr === undefined ? null : cronProblem(expr);
    if (problem !== null) problems.push(`cron.${job}: ${problem}`);
  }
  if (problems.length > 0) throw new Error(problems[0]);
  let shapes = config.shapes;
  if (entry.shapes !== undefined) {
    try {
      shapes = loadShapesFile(entry.shapes, shapeCatalog(ENDPOINTS));
    } catch (err) {
      if (err instanceof ShapesFileError) throw new Error(`shapes: ${err.message}`);
      throw err;
    }
  }
  let apiBaseUrl = config.apiBaseUrl;
  if (entry.baseUrl !== undefined) {
    // Checked by MRP_API_BASE_URL's own parser.
    try {
      apiBaseUrl = loadConfig({ MRP_API_BASE_URL: entry.baseUrl }).apiBaseUrl;
    } catch {
      throw new Error('baseUrl: expected an http(s) URL without query or fragment');
    }
  }
  const overlay = {
    ...config,
    apiKey: key,
    apiBaseUrl,
    ...(entry.maxRps !== undefined ? { maxRps: entry.maxRps } : {}),
    ...(entry.concurrency !== undefined ? { concurrency: entry.concurrency } : {}),
    ...(entry.cron?.full !== undefined ? { cronFull: entry.cron.full } : {}),
    ...(entry.cron?.season !== undefined ? { cronSeason: entry.cron.season } : {}),
    ...(entry.cron?.live !== undefined ? { cronLive: entry.cron.live } : {}),
  };
  return Object.freeze({ ...overlay, ...(shapes !== undefined ? { shapes } : {}) });
}

/**
 * The sources a command works for. With PITWALL_SOURCES, the file's, each checked with a one-line
 * error naming its entry (`PITWALL_SOURCES: sources[1].keyEnv: TRACK_B_KEY is not set`);
 * without it, MRP_API_KEY alone is the one source `default`.
 */
export function loadSources(config: Config, env: Readonly<Record<string, string | undefined>>): Source[] {
  if (config.sourcesFile === undefined && config.apiKey === undefined) {
    // The same message a command requiring MRP_API_KEY has always given.
    loadConfig({}, {}, { require: ['apiKey'] });
    throw new Error('unreachable: MRP_API_KEY is required');
  }
  return readSources(config, env, 'required') as Source[];
}

/**
 * The sources of a command that needs no key (`status`, `drift`, `rebuild`): checked as
 * loadSources checks them, except that a key which cannot be read is left out instead of an
 * error; without PITWALL_SOURCES, the one source `default`, with MRP_API_KEY when it is set.
 */
export function loadSourceSettings(config: Config, env: Readonly<Record<string, string | undefined>>): SourceSettings[] {
  return readSources(config, env, 'optional');
}

function readSources(config: Config, env: Readonly<Record<string, string | undefined>>, keys: 'required' | 'optional'): SourceSettings[] {
  const path = config.sourcesFile;
  if (path === undefined) return [{ name: DEFAULT_SOURCE, config }];
  const fail = (message: string): never => {
    throw new ConfigError([{ variable: 'PITWALL_SOURCES', message }]);
  };
  let text: string;
  let json: unknown;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return fail(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message;
    const place = jsonErrorPhrase(text, message);
    return fail(place ? `${path} is not JSON: ${place}` : `${path} is not JSON (${message})`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`${path}: ${where(issue?.path ?? [])}: ${issue?.message ?? 'invalid'}`);
  }
  const seen = new Set<string>();
  return parsed.data.sources.map((entry, i) => {
    if (seen.has(entry.name)) fail(`${path}: sources[${i}].name: ${entry.name} is named twice`);
    seen.add(entry.name);
    try {
      const key = keys === 'required' ? readKey(entry, env) : optionalKey(entry, env);
      return { name: entry.name, config: sourceConfig(entry, key, config) };
    } catch (err) {
      return fail(`${path}: sources[${i}] (${entry.name}).${(err as Error).message}`);
    }
  });
}

/** A source's key when it can be read; none when its variable is unset or its file unreadable. */
function optionalKey(entry: SourceEntry, env: Readonly<Record<string, string | undefined>>): string | undefined {
  try {
    return readKey(entry, env);
  } catch {
    return undefined;
  }
}

/**
 * The sources `--source NAME` (repeatable) selects, in the file's order; all of them when none is
 * named. An unknown name is a usage error naming the known ones.
 */
export function selectSources<S extends { name: string }>(sources: readonly S[], names: readonly string[] | undefined): S[] {
  if (!names || names.length === 0) return [...sources];
  const known = new Set(sources.map((s) => s.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    throw new ConfigError([{ variable: '--source', message: `no source named ${unknown.join(', ')}; known: ${[...known].join(', ')}` }]);
  }
  return sources.filter((s) => names.includes(s.name));
}

/** Every source's key (those that could be read), for the logger's and the errors' redaction. */
export function sourceSecrets(sources: readonly SourceSettings[]): string[] {
  return sources.map((s) => s.config.apiKey).filter((key): key is string => key !== undefined);
}

/**
 * The `keyEnv` variables a sources file names, read leniently for the warning about unknown
 * variables (src/unknown-variables.ts): a file that cannot be read or checked names none here,
 * and the command that loads it says why.
 */
export function sourceKeyVariables(path: string | undefined): string[] {
  if (path === undefined || path.trim() === '') return [];
  try {
    const json = JSON.parse(readFileSync(path.trim(), 'utf8')) as { sources?: Array<{ keyEnv?: unknown }> };
    return (Array.isArray(json.sources) ? json.sources : []).map((s) => s?.keyEnv).filter((k): k is string => typeof k === 'string');
  } catch {
    return [];
  }
}
