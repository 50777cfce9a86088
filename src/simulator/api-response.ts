import { driftItems } from './drift.js';
import { renderEnvelope, renderInvalidEnvelope } from './envelope.js';
import { isValidCallbackName, JSON_CONTENT_TYPE, JSONP_CONTENT_TYPE, wrapJsonp } from './jsonp.js';
import type { SimulatorConfig } from './options.js';
import { canonicalRequest } from './request-log.js';
import { indexFor, unitFor } from './seeded-random.js';
import { ticksAtNoon } from './ticks.js';
import { transportParam, withoutTransportParams } from './transport-params.js';
import type { Quirks, World } from './world/types.js';

/**
 * What the simulator answers to one `GET /v2/...` request, before faults and transport: status,
 * content type and body text. Deterministic in (world state, seed, quirks, path, query), which
 * is what lets two simulators with one seed serve byte-identical bodies.
 */

export interface ApiContext {
  world: World;
  seed: number;
  key: string;
  quirks: Quirks;
  invalidRequest: SimulatorConfig['invalidRequest'];
  /** Bodies drifted from the declared shapes (src/simulator/drift.ts). */
  drift: boolean;
}

export interface ApiAnswer {
  status: number;
  contentType: string;
  body: string;
  /** True when the body is a v2 envelope (so body-level faults can apply to it). */
  envelope: boolean;
}

export function answerApiRequest(
  ctx: ApiContext,
  path: string,
  query: URLSearchParams,
  options: { forceInvalid?: boolean } = {},
): ApiAnswer {
  const callback = transportParam(query, 'jsoncallback');
  if (callback !== null && !isValidCallbackName(callback)) {
    return jsonError(400, 'jsoncallback must be a JavaScript identifier');
  }
  // The upstream's paths all end with '/'; a missing slash is a different (unknown) resource.
  if (!path.endsWith('/')) return jsonError(404, `no such resource: ${path} (v2 paths end with '/')`);

  const worldQuery = withoutTransportParams(query);
  const outcome = ctx.world.render(path, worldQuery, ctx.quirks);
  if (outcome.kind === 'not-found') return jsonError(404, `no such resource: ${path}`);

  const ticks = ticksAtNoon(ctx.world.today());
  const wrap = (status: number, json: string): ApiAnswer =>
    callback === null
      ? { status, contentType: JSON_CONTENT_TYPE, body: json, envelope: true }
      : { status, contentType: JSONP_CONTENT_TYPE, body: wrapJsonp(callback, json), envelope: true };
  const httpErrors = ctx.invalidRequest === 'http-error';

  if (transportParam(query, 'key') !== ctx.key) return wrap(httpErrors ? 401 : 200, renderInvalidEnvelope(outcome.arrayKey, ticks));
  if (outcome.kind === 'missing-filter') {
    return wrap(httpErrors ? 400 : 200, renderInvalidEnvelope(outcome.arrayKey, ticks));
  }
  if (options.forceInvalid) return wrap(200, renderInvalidEnvelope(outcome.arrayKey, ticks));

  const items = ctx.drift ? driftItems(path, outcome.items) : outcome.items;
  return wrap(
    200,
    renderEnvelope({
      valid: true,
      arrayKey: outcome.arrayKey,
      items,
      header: outcome.header,
      ticks,
      doubleCommaAfter: pointsDefectAt(ctx, path, query, items.length),
    }),
  );
}

/**
 * The upstream's `,,` bug in /v2/points/, at rate `quirks.doubleComma`. Chosen from the seed and
 * the request's canonical spelling, never from arrival order, so a retry of the same request
 * sees the same defect (as a cached upstream body would).
 */
function pointsDefectAt(ctx: ApiContext, path: string, query: URLSearchParams, itemCount: number): number | undefined {
  if (path !== '/v2/points/' || itemCount < 2) return undefined;
  const request = canonicalRequest(path, query, ['jsoncallback']);
  if (unitFor(ctx.seed, `doubleComma:${request}`) >= ctx.quirks.doubleComma) return undefined;
  return indexFor(ctx.seed, `doubleCommaAt:${request}`, itemCount - 1);
}

function jsonError(status: number, error: string): ApiAnswer {
  return { status, contentType: JSON_CONTENT_TYPE, body: JSON.stringify({ error }), envelope: false };
}
