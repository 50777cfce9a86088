import type { z } from 'zod';

import { fullSchema } from '../../../src/endpoints/declare.js';
import { pointsHeader } from '../../../src/endpoints/point-standings.js';
import { ENDPOINTS } from '../../../src/endpoints/registry.js';
import { createWorld } from '../../../src/simulator/world/index.js';
import { NO_QUIRKS, type Quirks, type Scale, type World } from '../../../src/simulator/world/types.js';

/** The schema every item of each endpoint must parse with (the warehouse loader's view), from the declarations. */
export const ITEM_SCHEMAS: Record<string, z.ZodType> = Object.fromEntries(ENDPOINTS.map((ep) => [ep.path, fullSchema(ep.list.level)]));

const built = new Map<string, World>();
/** A world shared by the tests of one file that only read it. */
export function sharedWorld(scale: Scale, seed = 1): World {
  const key = `${scale}:${seed}`;
  let world = built.get(key);
  if (!world) {
    world = createWorld({ seed, scale });
    built.set(key, world);
  }
  return world;
}

export type Query = Record<string, string | number>;

export function searchParams(query: Query): URLSearchParams {
  return new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
}

export function items(world: World, path: string, query: Query = {}, quirks?: Quirks): unknown[] {
  const outcome = world.render(path, searchParams(query), quirks ?? NO_QUIRKS);
  if (outcome.kind !== 'ok') throw new Error(`${path} ${JSON.stringify(query)} answered ${outcome.kind}`);
  return outcome.items;
}

/** Items parsed with the endpoint's schema: what an ingester would load. */
export function parsed<T = Record<string, unknown>>(world: World, path: string, query: Query = {}, quirks?: Quirks): T[] {
  const schema = ITEM_SCHEMAS[path];
  if (!schema) throw new Error(`no schema for ${path}`);
  return items(world, path, query, quirks).map((item) => schema.parse(item) as T);
}

export interface WalkedRequest {
  path: string;
  query: Query;
  items: Record<string, unknown>[];
  header?: Record<string, unknown>;
}

/**
 * The full walk an ingester makes (the one `truth()` describes), each response parsed with the
 * wire schemas. Ids come from parsed items, so it works with every quirk on.
 */
export function walk(world: World, quirks: Quirks): WalkedRequest[] {
  const out: WalkedRequest[] = [];
  const get = (path: string, query: Query = {}) => {
    const result: WalkedRequest = { path, query, items: parsed(world, path, query, quirks) };
    if (path === '/v2/points/') {
      const outcome = world.render(path, searchParams(query), quirks);
      if (outcome.kind === 'ok') result.header = pointsHeader.schema.parse(outcome.header) as Record<string, unknown>;
    }
    out.push(result);
    return result.items;
  };
  const events = new Set<number>();
  for (const y of get('/v2/schedules/years/')) {
    for (const s of get('/v2/schedules/', { ScheduleYear: y.ScheduleYear as number })) {
      for (const e of get('/v2/schedules/events/', { ScheduleId: s.ScheduleId as number })) events.add(e.EventId as number);
    }
  }
  for (const e of events) {
    for (const path of ['/v2/schedules/results/', '/v2/schedules/lineups/', '/v2/schedules/entryList/', '/v2/schedules/driverPasses/']) {
      get(path, { EventId: e });
    }
  }
  get('/v2/schedules/results/feed/');
  get('/v2/schedules/driverStats/');
  for (const y of get('/v2/points/years/')) {
    for (const s of get('/v2/points/schedules/', { ScheduleYear: y.ScheduleYear as number })) {
      for (const c of get('/v2/points/classes/', { ScheduleId: s.ScheduleId as number })) {
        get('/v2/points/', { ScheduleId: s.ScheduleId as number, ClassId: c.ClassId as number });
      }
    }
  }
  return out;
}
