import { describe, expect, it } from 'vitest';

import { canonicalQuery } from '../../src/api/query.js';
import { childrenOf, ROOTS, type Endpoint, type Params } from '../../src/sync/endpoints.js';
import type { Seed } from '../../src/sync/extract/types.js';
import { walk } from '../../src/sync/walk.js';

// schedule_years -> schedules (by year) -> events (by schedule): the walk's own tree, no upstream.
const years = ROOTS.find((e) => e.name === 'schedule_years')!;
const schedules = childrenOf(years.name)[0]!;
const roots = [{ endpoint: years, params: {} }];

/** Seeds per visit: three years; each year's schedules share ids with the next year's; events end it. */
function seedsOf(ep: Endpoint, params: Params): Seed[] {
  if (ep === years) return [2024, 2025, 2026].map((year) => ({ year }));
  if (ep === schedules) {
    const from = (Number(params.ScheduleYear) - 2024) * 1000;
    return Array.from({ length: 2000 }, (_, i) => ({ scheduleId: from + i }));
  }
  return [];
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('walk', () => {
  it('visits each scope found once, never more than `concurrency` at a time, with thousands waiting', async () => {
    const visited: string[] = [];
    let running = 0;
    let most = 0;
    const result = await walk(
      { roots },
      {
        concurrency: 8,
        signal: new AbortController().signal,
        visit: async (ep, params) => {
          most = Math.max(most, ++running);
          visited.push(`${ep.name}?${canonicalQuery(params)}`);
          await tick();
          running -= 1;
          return seedsOf(ep, params);
        },
      },
    );
    // Events 0..3999: the overlapping schedules are fetched once.
    expect({ visits: visited.length, distinct: new Set(visited).size, most, cutShort: result.cutShort }).toEqual({ visits: 4004, distinct: 4004, most: 8, cutShort: 0 });
  });

  it('a stop lets the running visits finish, and counts the scopes it kept from starting and a finished parent whose children it dropped', async () => {
    const stop = new AbortController();
    let visits = 0;
    let found = 0;
    const result = await walk(
      { roots },
      {
        concurrency: 4,
        signal: stop.signal,
        onDiscovered: () => void (found += 1),
        visit: async (ep, params) => {
          visits += 1;
          // The first schedules visit stops the walk: the two queued beside it never start.
          if (ep === schedules) stop.abort();
          await tick();
          return seedsOf(ep, params);
        },
      },
    );
    expect({ found, visits, cutShort: result.cutShort }).toEqual({ found: 4, visits: 2, cutShort: 2 + 1 });
  });

  it('a failed visit fails the walk once every other visit has settled', async () => {
    const settled: string[] = [];
    const failing = walk(
      { roots },
      {
        concurrency: 4,
        signal: new AbortController().signal,
        visit: async (ep, params) => {
          await tick();
          if (params.ScheduleId === '5') throw new Error('boom');
          settled.push(canonicalQuery(params));
          return seedsOf(ep, params).slice(0, 10);
        },
      },
    );
    await expect(failing).rejects.toThrow('boom');
    // The year, its three schedules and their 30 events, but the failed one: all visited before the walk gave its failure.
    expect(settled.length).toBe(1 + 3 + 30 - 1);
  });
});
