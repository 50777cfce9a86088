import { loadConfig } from '../config.js';
import { ENDPOINTS } from '../endpoints/registry.js';
import { probeText, sampleDrift, sampleFailing, samplePaths } from '../probe/report.js';
import { KeyRefusedError, PROBE_REQUEST_BUDGET, UpstreamUnreachableError, collectSamples } from '../probe/sample.js';
import { saveSamples } from '../probe/save.js';
import { redact } from '../secrets.js';
import { suggestShapes } from '../shapes/suggest.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';

/**
 * `pitwall probe [--save DIR] [--json] [--suggest] [--max-requests N]`: one small sample of each
 * endpoint (at most 20 first requests, or N, and an allowance of retries; no database), printed
 * with its envelope and its shape against the declared shapes. `--suggest` prints instead a
 * `PITWALL_SHAPES` file for what the samples' report can explain. Exit 2 when the upstream
 * refuses the key, 5 when no root request got any HTTP answer, 1 when a sample could not be had.
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: { ...CONFIG_FLAG_OPTIONS, ...HELP, json: { type: 'boolean' }, save: { type: 'string' }, suggest: { type: 'boolean' }, 'max-requests': { type: 'string' } },
  });
  const maxRequests = values['max-requests'] === undefined ? PROBE_REQUEST_BUDGET : Number(values['max-requests']);
  if (!Number.isInteger(maxRequests) || maxRequests < 1 || maxRequests > 10_000) {
    throw new UsageError(`--max-requests: expected an integer from 1 to 10000, got ${JSON.stringify(values['max-requests'])}`);
  }
  const config = loadConfig(ctx.env, configFlags(values), { require: ['apiKey'] });
  // What went wrong is in the report (or the one line of a refused key); the client's retry
  // warnings would only bury it. Debug and trace still show everything.
  const quiet = config.logLevel === 'debug' || config.logLevel === 'trace' ? config : { ...config, logLevel: 'error' as const };
  const logger = makeLogger(quiet, ctx);
  let samples;
  try {
    samples = await collectSamples({ config, logger, signal: ctx.signal, maxRequests });
  } catch (err) {
    if (!(err instanceof KeyRefusedError || err instanceof UpstreamUnreachableError)) throw err;
    (ctx.err ?? ctx.out)(`pitwall: ${err.message}\n`);
    return err instanceof KeyRefusedError ? EXIT.usage : EXIT.upstreamUnreachable;
  }
  const overrides = config.shapes ?? null;
  if (values.suggest) {
    const { file, notes } = suggestShapes(ENDPOINTS, samplePaths(samples, overrides), sampleFailing(samples).values);
    ctx.out(redact(JSON.stringify(file, null, 2), [config.apiKey]));
    ctx.err?.(`${redact((notes.length ? notes : ['nothing the samples can explain: no suggestion']).join('\n'), [config.apiKey])}\n`);
    return samples.some((s) => s.outcome !== 'ok') ? EXIT.failed : EXIT.ok;
  }
  const drift = sampleDrift(samples, overrides);
  const saved = values.save ? await saveSamples(values.save, samples, config.apiKey) : [];
  const text = values.json
    ? JSON.stringify({ samples: samples.map(({ body: _body, ...s }) => s), endpoints: drift, ...(values.save ? { saved } : {}) })
    : probeText(samples, drift) + (saved.length ? `\n\nSaved ${saved.length} file(s) to ${values.save}` : '');
  // Examples and errors quote what the upstream sent, which could echo the key.
  ctx.out(redact(text, [config.apiKey]));
  return samples.some((s) => s.outcome !== 'ok') ? EXIT.failed : EXIT.ok;
}
