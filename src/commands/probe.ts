import { join } from 'node:path';

import type { RateLimiter } from '../api/rate-limit.js';
import { loadConfig } from '../config.js';
import { DEFAULT_SOURCE } from '../db/schema/columns.js';
import { ENDPOINTS } from '../endpoints/registry.js';
import type { Logger } from '../log.js';
import { probeText, sampleDrift, sampleFailing, samplePaths } from '../probe/report.js';
import { KeyRefusedError, PROBE_REQUEST_BUDGET, UpstreamUnreachableError, collectSamples, type ProbeSample } from '../probe/sample.js';
import { saveSamples } from '../probe/save.js';
import { openProbePace } from '../probe/shared-pace.js';
import { redact } from '../secrets.js';
import { suggestShapes } from '../shapes/suggest.js';
import { loadSources, selectSources, sourceSecrets, type Source } from '../sources.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, SOURCE_OPTION, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { perSourceJson, perSourceText } from './per-source.js';
import { worstExitCode } from './sync-report.js';

/** One source's probe: its samples, or why the upstream gave none (a refused key, no answer). */
type Probed = { samples: ProbeSample[] } | { failure: KeyRefusedError | UpstreamUnreachableError };

/**
 * `pitwall probe [--source NAME ...] [--save DIR] [--json] [--suggest] [--max-requests N]`: per
 * source (all of them, or the ones named), with its own key, one small sample of each endpoint
 * (at most 20 first requests, or N, and an allowance of retries; nothing written, though with
 * DATABASE_URL its requests take their slots from the source's pace in the warehouse), printed
 * with its envelope and its shape against the declared shapes. `--suggest` prints instead a
 * `PITWALL_SHAPES` file for what one source's samples can explain. Exit 2 when the upstream
 * refuses a key, 5 when no root request got any HTTP answer, 1 when a sample could not be had.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: {
      ...CONFIG_FLAG_OPTIONS,
      ...HELP,
      ...SOURCE_OPTION,
      json: { type: 'boolean' },
      save: { type: 'string' },
      suggest: { type: 'boolean' },
      'max-requests': { type: 'string' },
    },
  });
  const maxRequests = values['max-requests'] === undefined ? PROBE_REQUEST_BUDGET : Number(values['max-requests']);
  if (!Number.isInteger(maxRequests) || maxRequests < 1 || maxRequests > 10_000) {
    throw new UsageError(`--max-requests: expected an integer from 1 to 10000, got ${JSON.stringify(values['max-requests'])}`);
  }
  const config = loadConfig(ctx.env, configFlags(values));
  const sources = selectSources(loadSources(config, ctx.env), values.source);
  const names = sources.map((s) => s.name);
  if (values.suggest && sources.length !== 1) throw new UsageError(`--suggest writes one PITWALL_SHAPES file: name one source with --source (${names.join(', ')})`);
  // Examples and errors quote what the upstream sent, which could echo a key: every output is
  // redacted with every source's.
  const keys = sourceSecrets(sources);
  // What went wrong is in the report (or the one line of a refused key); the client's retry
  // warnings would only bury it. Debug and trace still show everything.
  const quiet = config.logLevel === 'debug' || config.logLevel === 'trace' ? config : { ...config, logLevel: 'error' as const };
  const logger = makeLogger(quiet, ctx, keys);
  const probed: Probed[] = [];
  const pace = await openProbePace(config, logger, sources);
  try {
    for (const source of sources) {
      const one = await probeSource(source, logger, ctx.signal, maxRequests, pace.limiterFor(source));
      if ('failure' in one) (ctx.err ?? ctx.out)(`pitwall: ${sources.length > 1 ? `source ${source.name}: ` : ''}${one.failure.message}\n`);
      probed.push(one);
    }
  } finally {
    await pace.close();
  }
  const codes = probed.map(exitCode);
  const [first] = probed;
  if (values.suggest) {
    if (!first || 'failure' in first) return worstExitCode(codes);
    const overrides = sources[0]?.config.shapes ?? null;
    const { file, notes } = suggestShapes(ENDPOINTS, samplePaths(first.samples, overrides), sampleFailing(first.samples).values);
    ctx.out(redact(JSON.stringify(file, null, 2), keys));
    ctx.err?.(`${redact((notes.length ? notes : ['nothing the samples can explain: no suggestion']).join('\n'), keys)}\n`);
    return worstExitCode(codes);
  }
  // One source's failure was its one line on stderr, as it has always been; beside others, it is a part of the report too.
  if (sources.length === 1 && first && 'failure' in first) return worstExitCode(codes);
  const reports: Array<{ text: string; json: unknown }> = [];
  for (const [i, source] of sources.entries()) {
    const one = probed[i];
    if (!one) continue;
    if ('failure' in one) {
      reports.push({ text: `no samples: ${one.failure.message}`, json: { error: one.failure.message, ...(one.failure instanceof KeyRefusedError ? { keyRefused: true } : { upstreamUnreachable: true }) } });
      continue;
    }
    const overrides = source.config.shapes ?? null;
    const drift = sampleDrift(one.samples, overrides);
    // Several sources' bodies go into a directory each, named for the source.
    const dir = values.save === undefined ? undefined : sources.length > 1 ? join(values.save, source.name) : values.save;
    const saved = dir ? await saveSamples(dir, one.samples, source.config.apiKey) : [];
    reports.push({
      text: probeText(one.samples, drift) + (saved.length ? `\n\nSaved ${saved.length} file(s) to ${dir}` : ''),
      json: { samples: one.samples.map(({ body: _body, ...s }) => s), endpoints: drift, ...(dir ? { saved } : {}) },
    });
  }
  const text = values.json ? perSourceJson(names, reports.map((r) => r.json)) : perSourceText(names, reports.map((r) => r.text));
  ctx.out(redact(text, keys));
  return worstExitCode(codes);
}

async function probeSource(source: Source, logger: Logger, signal: AbortSignal, maxRequests: number, limiter: RateLimiter | undefined): Promise<Probed> {
  // The single source of a configuration without a sources file goes unnamed, as it always has.
  const sourceLogger = source.name === DEFAULT_SOURCE ? logger : logger.child({ source: source.name });
  try {
    return { samples: await collectSamples({ config: source.config, logger: sourceLogger, signal, maxRequests, ...(limiter ? { limiter } : {}) }) };
  } catch (err) {
    if (err instanceof KeyRefusedError || err instanceof UpstreamUnreachableError) return { failure: err };
    throw err;
  }
}

/** A source's exit code: its failure's (4 for a refused key, 5 for an upstream out of reach), 1 when a sample could not be had. */
function exitCode(probed: Probed): number {
  if ('failure' in probed) return probed.failure.exitStatus;
  return probed.samples.some((s) => s.outcome !== 'ok') ? EXIT.failed : EXIT.ok;
}
