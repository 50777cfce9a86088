import { createApiClient, type ApiClient } from '../api/client.js';
import { ApiError } from '../api/errors.js';
import { httpGet, type Transport } from '../api/http-get.js';
import { canonicalQuery } from '../api/query.js';
import type { RateLimiter } from '../api/rate-limit.js';
import { isRequestValid } from '../api/schemas/envelope.js';
import { networkCauseOf, unreachableMessage, type NetworkCause } from '../api/unreachable.js';
import type { Config } from '../config.js';
import { EXIT, PitwallError } from '../errors.js';
import type { Logger } from '../log.js';
import type { EndpointOverrides } from '../shapes/overrides.js';
import { classifyBadBody, itemsOf } from '../sync/bad-body.js';
import { ENDPOINTS, type Endpoint, type EndpointName } from '../sync/endpoints.js';
import type { Seed } from '../sync/extract/types.js';
import { isRefusalStatus } from '../sync/key-refusal.js';
import { apiClientOptions } from '../sync/run-client.js';
import { fieldValueText } from '../sync/sql/field-errors.js';

/**
 * The most requests one probe sends upstream, counted in first attempts: one per sample, so 13
 * endpoints fit with room to spare. Retries draw on an allowance of their own, so a flaky
 * upstream (an error page on the first request of each path) cannot spend the budget on retries
 * and leave endpoints unsampled. Each request gets at most PROBE_ATTEMPTS attempts.
 */
export const PROBE_REQUEST_BUDGET = 20;
export const PROBE_ATTEMPTS = 2;
/** Retries in all: three quarters of the first-attempt budget, at least 15 (one per endpoint and a few more). */
export const retryAllowance = (firstAttempts: number): number => Math.max(15, Math.ceil((firstAttempts * 3) / 4));

/** How many reject reasons a sample shows. */
const REASONS_SHOWN = 3;

/** A value of a sample that failed its field's type: what `pitwall drift` reports from pitwall.field_errors. */
export interface SampleFieldError {
  path: string;
  /** As received, JSON text. */
  value: string;
  reason: string;
}

export interface ProbeSample {
  endpoint: EndpointName;
  path: string;
  /** The query without the key. */
  params: string;
  /** ok: a usable answer; invalid: RequestValid not 1; failed: no usable answer; skipped: its parent gave nothing to ask for. */
  outcome: 'ok' | 'invalid' | 'failed' | 'skipped';
  requestValid: unknown;
  requestCached: unknown;
  /** The list key the endpoint is assumed to have, whether the body had it, and every top-level key holding a list. */
  listKey: { expected: string; found: boolean; lists: string[] };
  items: number | null;
  /** Items that did not fit their schema, and the first reasons. */
  rejected: number;
  reasons: string[];
  error?: string;
  /** The HTTP status of a request that failed on one. */
  httpStatus?: number;
  /** Values that failed their field's type, the item still loading with NULL there. */
  fieldErrors: SampleFieldError[];
  body?: Record<string, unknown>;
}

/** The upstream refused the key: RequestValid 0 (or HTTP 401/403) on the first, parameterless, request. */
export class KeyRefusedError extends PitwallError {
  override readonly name = 'KeyRefusedError';
  readonly code = 'key-refused';
  readonly exitStatus = EXIT.keyRefused;
  readonly expected = true;
}

/** No root request of the probe got any HTTP answer: the message names MRP_API_BASE_URL, the host and the cause. */
export class UpstreamUnreachableError extends PitwallError {
  override readonly name = 'UpstreamUnreachableError';
  readonly code = 'upstream-unreachable';
  readonly exitStatus = EXIT.upstreamUnreachable;
  readonly expected = true;
}

/** Parents before children: roots first, then each level of the fan-out. */
function depth(ep: Endpoint): number {
  let d = 0;
  for (let p = ep.parent; p !== null; p = ENDPOINTS.find((e) => e.name === p)?.parent ?? null) d += 1;
  return d;
}
export const PROBE_ORDER: readonly Endpoint[] = [...ENDPOINTS].sort((a, b) => depth(a) - depth(b));

/**
 * The one seed a probe follows: the latest year (a season with data), the event the results
 * feed names first for per-event endpoints (an event that has results), else the first seed.
 */
function pickSeed(ep: Endpoint, seeds: ReadonlyMap<EndpointName, Seed[]>): Seed | undefined {
  if (ep.parent === null) return {};
  const candidates = seeds.get(ep.parent) ?? [];
  if (ep.parent === 'events') return seeds.get('results_feed')?.[0] ?? candidates[0];
  if (candidates.some((s) => s.year !== undefined)) return [...candidates].sort((a, b) => (b.year ?? 0) - (a.year ?? 0))[0];
  return candidates[0];
}

export interface ProbeDeps {
  config: Config & { apiKey: string };
  /** First attempts the probe may send; PROBE_REQUEST_BUDGET unless `--max-requests` raises it. */
  maxRequests?: number;
  logger: Logger;
  fetch?: Transport;
  signal?: AbortSignal;
  /** The source's pace shared with its syncs and workers (a guest's share when a worker owns the source); else the probe keeps to `maxRps` alone. */
  limiter?: RateLimiter;
}

/**
 * A transport that refuses to send more than `firstAttempts` first requests of a URL and `retries`
 * repeats in all: below the client, so nothing it does can exceed them.
 */
export function budgetedFetch(base: Transport, firstAttempts: number, retries: number): Transport {
  const asked = new Set<string>();
  let repeats = 0;
  return (url, init) => {
    if (asked.has(url)) {
      if (repeats >= retries) return Promise.reject(new Error(`the probe's allowance of ${retries} retries is spent`));
      repeats += 1;
    } else {
      if (asked.size >= firstAttempts) return Promise.reject(new Error(`the probe's budget of ${firstAttempts} requests is spent; --max-requests raises it`));
      asked.add(url);
    }
    return base(url, init);
  };
}

/**
 * Asks the upstream for one small sample of each endpoint, following the endpoint table from the
 * roots down (one year, one schedule of it, one event, one points class), within the request
 * budget (see PROBE_REQUEST_BUDGET). Writes nothing anywhere.
 */
export async function collectSamples(deps: ProbeDeps): Promise<ProbeSample[]> {
  const budget = deps.maxRequests ?? PROBE_REQUEST_BUDGET;
  const api = probeClient(deps, budgetedFetch(deps.fetch ?? httpGet, budget, retryAllowance(budget)));
  const seeds = new Map<EndpointName, Seed[]>();
  const samples: ProbeSample[] = [];
  /** Per root endpoint, why it got no HTTP answer, or null when it got one. */
  const roots: Array<NetworkCause | null> = [];
  for (const ep of PROBE_ORDER) {
    const seed = pickSeed(ep, seeds);
    const params = seed ? ep.params(seed) : {};
    const { sample, refused, unreached, seeds: found } = seed
      ? await probeOne(api, ep, params, deps.config.shapes?.endpoints.get(ep.name), deps.signal)
      : { sample: skipped(ep), refused: false, unreached: null };
    if (ep.parent === null) roots.push(unreached);
    if (samples.length === 0 && (refused || sample.outcome === 'invalid')) {
      const answer = sample.httpStatus !== undefined ? `HTTP ${sample.httpStatus}` : (sample.error ?? 'RequestValid 0');
      throw new KeyRefusedError(`the upstream refused the API key in MRP_API_KEY (${ep.path} answered ${answer}); check the key`);
    }
    samples.push(sample);
    if (found) seeds.set(ep.name, found);
  }
  const cause = roots[0];
  if (cause && roots.every((c) => c !== null)) throw new UpstreamUnreachableError(unreachableMessage(deps.config.apiBaseUrl, cause));
  return samples;
}

function probeClient(deps: ProbeDeps, f: Transport): ApiClient {
  return createApiClient({
    ...apiClientOptions(deps.config, deps.logger),
    maxAttempts: Math.min(deps.config.maxAttempts, PROBE_ATTEMPTS),
    fetch: f,
    ...(deps.limiter ? { limiter: deps.limiter } : {}),
  });
}

const base = (ep: Endpoint, params: Record<string, string>): Omit<ProbeSample, 'outcome'> => ({
  endpoint: ep.name,
  path: ep.path,
  params: canonicalQuery(params),
  requestValid: undefined,
  requestCached: undefined,
  listKey: { expected: ep.arrayKey, found: false, lists: [] },
  items: null,
  rejected: 0,
  reasons: [],
  fieldErrors: [],
});

const skipped = (ep: Endpoint): ProbeSample => ({ ...base(ep, {}), outcome: 'skipped', error: `no ${ep.parent ?? ''} sample to ask for` });

/** One sample, whether the upstream refused the caller (HTTP 401/403) or gave no HTTP answer at all, and the seeds of a loadable body. */
async function probeOne(
  api: ApiClient,
  ep: Endpoint,
  params: Record<string, string>,
  overrides: EndpointOverrides | undefined,
  signal?: AbortSignal,
): Promise<{ sample: ProbeSample; refused: boolean; unreached: NetworkCause | null; seeds?: Seed[] }> {
  const sample = base(ep, params);
  let res;
  try {
    res = await api.get(ep.path, params, signal ? { signal } : {});
  } catch (err) {
    const httpStatus = err instanceof ApiError ? err.status : undefined;
    // Named as sync and rebuild name it (bad-body.ts), so the three agree on what a bad body is.
    const bad = classifyBadBody(err);
    const message = err instanceof Error ? err.message : String(err);
    const error = bad ? `a bad body (${bad.kind}): ${message}` : message;
    const failed: ProbeSample = { ...sample, outcome: 'failed', error, ...(httpStatus !== undefined ? { httpStatus } : {}) };
    return { sample: failed, refused: isRefusalStatus(err), unreached: networkCauseOf(err) };
  }
  const answered = { refused: false, unreached: null };
  if (res.kind === 'known') return { sample: { ...sample, outcome: 'failed', error: 'unexpected known body' }, ...answered };
  const body = res.body;
  const lists = Object.keys(body).filter((k) => Array.isArray(body[k]));
  const items = body[ep.arrayKey];
  const described: ProbeSample = {
    ...sample,
    outcome: res.kind === 'ok' && isRequestValid(body.RequestValid) ? 'ok' : 'invalid',
    requestValid: body.RequestValid,
    requestCached: body.RequestCached,
    listKey: { expected: ep.arrayKey, found: Array.isArray(items), lists },
    items: Array.isArray(items) ? items.length : null,
    body,
  };
  if (res.kind === 'invalid') return { sample: { ...described, error: res.reason }, ...answered };
  let list: unknown[];
  try {
    list = itemsOf(ep, body);
  } catch (err) {
    const bad = classifyBadBody(err);
    if (!bad) throw err;
    return { sample: { ...described, outcome: 'failed', error: `a bad body (${bad.kind}): no "${ep.arrayKey}" list: a sync would reject the response whole` }, ...answered };
  }
  const extracted = ep.extract(list, params, body, overrides);
  const rejects = { rejected: extracted.rejects.length, reasons: extracted.rejects.slice(0, REASONS_SHOWN).map((r) => r.reason) };
  const fieldErrors = extracted.fieldErrors.map((e) => ({ path: e.path, value: fieldValueText(e.value), reason: e.reason }));
  return { sample: { ...described, ...rejects, fieldErrors }, ...answered, ...(described.outcome === 'ok' ? { seeds: extracted.seeds } : {}) };
}
