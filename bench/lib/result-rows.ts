import { parseBody } from '../../src/api/body.js';
import type { LoadRow } from '../../src/db/load/load-row.js';
import { answerApiRequest, type ApiContext } from '../../src/simulator/api-response.js';
import { SIMULATOR_KEY } from '../../src/simulator/options.js';
import { createWorld } from '../../src/simulator/world/index.js';
import { DEFAULT_QUIRKS, type Scale, type World } from '../../src/simulator/world/types.js';
import { endpoint, type EndpointName, type Params } from '../../src/sync/endpoints.js';
import type { Extracted } from '../../src/sync/extract/types.js';

/** The seed every benchmark world is built from, so every run loads the same rows. */
export const BENCH_SEED = 1;

/**
 * One response as the sync sees it: the simulator's body text (default quirks: ids as strings,
 * flags as 0/1 and the rest), parsed by the client's body parser and run through the endpoint's
 * real `extract`. Only HTTP is skipped.
 */
function extractFrom(world: World, name: EndpointName, params: Params): Extracted {
  const ep = endpoint(name);
  const ctx: ApiContext = { world, seed: world.seed, key: SIMULATOR_KEY, quirks: DEFAULT_QUIRKS, invalidRequest: 'request-valid-0', drift: false };
  const answer = answerApiRequest(ctx, ep.path, new URLSearchParams({ ...params, key: SIMULATOR_KEY }));
  const body = parseBody(answer.body).value as Record<string, unknown>;
  const items = body[ep.arrayKey];
  if (!Array.isArray(items)) throw new Error(`${ep.path}: no ${ep.arrayKey} list in the simulator's answer`);
  return ep.extract(items, params, body);
}

/** Every event id the schedules side lists, in ascending order, found the way the walk finds them. */
function eventIds(world: World): number[] {
  const ids = new Set<number>();
  for (const y of extractFrom(world, 'schedule_years', {}).seeds) {
    for (const s of extractFrom(world, 'schedules', { ScheduleYear: String(y.year) }).seeds) {
      for (const e of extractFrom(world, 'events', { ScheduleId: String(s.scheduleId) }).seeds) ids.add(Number(e.eventId));
    }
  }
  return [...ids].sort((a, b) => a - b);
}

/** The smallest world with at least `rows` result rows (the medium one unless more are asked for). */
export function worldFor(rows: number): World {
  for (const scale of ['medium', 'large'] as const satisfies readonly Scale[]) {
    const world = createWorld({ seed: BENCH_SEED, scale });
    if (world.summary().resultRows >= rows || scale === 'large') return world;
  }
  throw new Error('unreachable');
}

/**
 * The first `count` mrp.results rows the sync would load from `world`: event by event, each
 * from its `/v2/schedules/results/?EventId=` response through the real extract.
 */
export function resultRows(world: World, count: number): LoadRow[] {
  const rows: LoadRow[] = [];
  for (const id of eventIds(world)) {
    if (rows.length >= count) break;
    const extracted = extractFrom(world, 'results', { EventId: String(id) });
    for (const row of extracted.rows.results ?? []) rows.push(row);
  }
  if (rows.length < count) throw new Error(`the ${world.scale} world holds only ${rows.length} result rows; asked for ${count}`);
  return rows.slice(0, count);
}

/**
 * The same rows, every one changed the way an upstream correction changes it: a typed column
 * and the raw item both differ from what is stored.
 */
export function changedRows(rows: readonly LoadRow[]): LoadRow[] {
  return rows.map((row) => {
    const raw = row.raw as Record<string, unknown>;
    const start = typeof row.start === 'number' ? row.start + 100 : 100;
    return { ...row, start, raw: { ...raw, ResultStart: start } };
  });
}
