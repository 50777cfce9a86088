import type { IncomingMessage, ServerResponse } from 'node:http';

import { z } from 'zod';

import { BadRequestError, readJsonBody, sendJson } from './http.js';
import { driftSchema, type FaultConfig, faultConfigSchema, isoDay, quirksSchema } from './options.js';
import type { RequestRecorder } from './request-log.js';
import type { Quirks, World } from './world/types.js';

/**
 * The simulator's admin API, under /__simulator/. JSON in, JSON out; no key (the simulator
 * listens on loopback and is a test fixture). Never delayed or faulted, and never counted in
 * the request log. Bad input answers 400 `{ "error": "...", "issues": [...] }`.
 *
 *   GET  /__simulator/requests             { total, byPath: { "<path>?<sorted query without key>": n },
 *                                            faults: { <kind>: n },
 *                                            bySite: { <site>: { requests, peakPerSecond } } }
 *   POST /__simulator/requests/reset       clears that log                              -> { ok: true }
 *   GET  /__simulator/truth[?table=<name>][&key=<key>] world.truth() (of the site whose key is given), or { <name>: rows } for one warehouse table
 *   GET  /__simulator/world                world.summary()
 *   POST /__simulator/clock                { "advanceDays": n } | { "today": "YYYY-MM-DD" } -> world.summary()
 *   POST /__simulator/correct-result       a ResultCorrection                            -> { ok: true }
 *   POST /__simulator/cancel-event         { "eventId": n }                              -> { ok: true }
 *   POST /__simulator/rename-driver        { "driverId": n, "firstName"?: s, "lastName"?: s } -> { ok: true }
 *   GET  /__simulator/faults               the fault config
 *   POST /__simulator/faults               replaces it (omitted fields take defaults; the fault
 *                                          sequence restarts)                             -> the config
 *   GET  /__simulator/quirks               the quirks
 *   POST /__simulator/quirks               replaces them (omitted fields take DEFAULT_QUIRKS) -> the quirks
 *   GET  /__simulator/drift                { "drift": boolean }
 *   POST /__simulator/drift                { "drift": boolean }: drifted bodies on or off      -> the same
 *
 * A world method that rejects its input (an unknown eventId, say) also answers 400.
 */

export interface AdminContext {
  /** The first site's world: what the routes that change a world change. */
  world: World;
  /** Every site's key and world; the clock moves them all, the truth is asked per key. */
  sites: ReadonlyArray<{ key: string; world: World }>;
  requests: RequestRecorder;
  faults(): FaultConfig;
  setFaults(config: FaultConfig): void;
  quirks(): Quirks;
  setQuirks(quirks: Quirks): void;
  drift(): boolean;
  setDrift(drift: boolean): void;
}

const positiveInt = z.number().int().positive();
const clockBody = z.union([
  z.strictObject({ advanceDays: z.number().int().min(0) }),
  z.strictObject({ today: isoDay }),
]);
const correctionBody = z.strictObject({
  eventId: positiveInt,
  classId: positiveInt,
  raceNumber: positiveInt,
  rowIndex: positiveInt,
  set: z
    .strictObject({
      finish: positiveInt,
      start: positiveInt,
      carNumber: z.string().min(1),
      dnf: z.boolean(),
      dns: z.boolean(),
      dq: z.boolean(),
    })
    .partial()
    .refine((s) => Object.keys(s).length > 0, 'set at least one field'),
});
const cancelBody = z.strictObject({ eventId: positiveInt });
const renameBody = z
  .strictObject({
    driverId: positiveInt,
    firstName: z.string().min(1).optional(),
    lastName: z.string().min(1).optional(),
  })
  .refine((b) => b.firstName !== undefined || b.lastName !== undefined, 'give firstName, lastName or both');

type Route = (ctx: AdminContext, req: IncomingMessage, url: URL) => Promise<unknown> | unknown;

const OK = { ok: true };

const routes: Record<string, Partial<Record<'GET' | 'POST', Route>>> = {
  requests: { GET: (ctx) => ctx.requests.snapshot() },
  'requests/reset': { POST: (ctx) => (ctx.requests.reset(), OK) },
  truth: { GET: (ctx, _req, url) => truth(siteWorld(ctx, url.searchParams.get('key')), url.searchParams.get('table')) },
  world: { GET: (ctx) => ctx.world.summary() },
  clock: {
    POST: async (ctx, req) => {
      const body = parse(clockBody, await readJsonBody(req));
      for (const { world } of ctx.sites) {
        if ('today' in body) world.setToday(body.today);
        else world.advanceDays(body.advanceDays);
      }
      return ctx.world.summary();
    },
  },
  'correct-result': {
    POST: async (ctx, req) => {
      ctx.world.correctResult(parse(correctionBody, await readJsonBody(req)));
      return OK;
    },
  },
  'cancel-event': {
    POST: async (ctx, req) => {
      ctx.world.cancelEvent(parse(cancelBody, await readJsonBody(req)).eventId);
      return OK;
    },
  },
  'rename-driver': {
    POST: async (ctx, req) => {
      const { driverId, ...name } = parse(renameBody, await readJsonBody(req));
      ctx.world.renameDriver(driverId, name);
      return OK;
    },
  },
  faults: {
    GET: (ctx) => ctx.faults(),
    POST: async (ctx, req) => (ctx.setFaults(parse(faultConfigSchema, await readJsonBody(req))), ctx.faults()),
  },
  quirks: {
    GET: (ctx) => ctx.quirks(),
    POST: async (ctx, req) => (ctx.setQuirks(parse(quirksSchema, await readJsonBody(req))), ctx.quirks()),
  },
  drift: {
    GET: (ctx) => ({ drift: ctx.drift() }),
    POST: async (ctx, req) => (ctx.setDrift(parse(driftSchema, await readJsonBody(req)).drift), { drift: ctx.drift() }),
  },
};

export const ADMIN_PREFIX = '/__simulator/';

export async function handleAdminRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: AdminContext,
): Promise<void> {
  const name = url.pathname.slice(ADMIN_PREFIX.length).replace(/\/$/, '');
  const route = routes[name];
  if (!route) {
    sendJson(res, 404, { error: `no admin route ${url.pathname}`, routes: Object.keys(routes) });
    return;
  }
  const handler = req.method === 'GET' || req.method === 'POST' ? route[req.method] : undefined;
  if (!handler) {
    const allow = Object.keys(route).join(', ');
    sendJson(res, 405, { error: `${req.method ?? 'this method'} is not allowed here` }, { Allow: allow });
    return;
  }
  try {
    sendJson(res, 200, await handler(ctx, req, url));
  } catch (err) {
    if (err instanceof BadRequestError) sendJson(res, 400, { error: err.message, issues: err.details });
    // The world throws on input it cannot apply (an unknown id): that is the caller's mistake too.
    else if (err instanceof Error && req.method === 'POST') sendJson(res, 400, { error: err.message });
    else throw err;
  }
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    throw new BadRequestError(z.prettifyError(result.error), issues);
  }
  return result.data;
}

/** The world of the site whose key is `key`; the first site's without one. */
function siteWorld(ctx: AdminContext, key: string | null): World {
  if (key === null) return ctx.world;
  const site = ctx.sites.find((s) => s.key === key);
  if (!site) throw new BadRequestError('no site has that key', { sites: ctx.sites.length });
  return site.world;
}

function truth(world: World, table: string | null): unknown {
  const all = world.truth();
  if (table === null) return all;
  if (!Object.hasOwn(all, table)) {
    throw new BadRequestError(`no warehouse table ${table}`, { tables: Object.keys(all) });
  }
  return { [table]: all[table as keyof typeof all] };
}
