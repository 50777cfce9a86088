import { beforeAll, describe, expect, it } from 'vitest';

import { COOKBOOK } from '../../src/analytics/cookbook.js';
import type { Truth } from '../../src/simulator/world/types.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

import { CHECKS } from './cookbook-checks.js';
import { worldTruth } from './truth.js';

describe('the cookbook', () => {
  it('has a check against the ground truth for every recipe, and at least ten recipes', () => {
    expect(COOKBOOK.length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(CHECKS).sort()).toEqual(COOKBOOK.map((r) => r.id).sort());
    expect(new Set(COOKBOOK.map((r) => r.id)).size).toBe(COOKBOOK.length);
  });
});

// Over a month of standings history: sync, let the simulated world race on for 45 days, sync again.
describe.each(BACKENDS)('every cookbook recipe, on %s, against a small world', (backend) => {
  let before: Truth;
  let truth: Truth;
  let localTimestamp: string;
  const { db, sim } = useWarehouse(backend, { scale: 'small', seed: 4 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    before = await worldTruth(sim.url);
    sim.world.advanceDays(45);
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    truth = await worldTruth(sim.url);
    localTimestamp = (await db.pool.query(`SELECT to_char(localtimestamp, 'YYYY-MM-DD HH24:MI:SS') AS t`)).rows[0].t;
  });

  it.each(COOKBOOK.map((r) => [r.id, r] as const))('%s answers as the ground truth says', async (id, recipe) => {
    const run = async (params: unknown[] = []) => (await db.pool.query(recipe.sql, params)).rows as Array<Record<string, unknown>>;
    await CHECKS[id]!({ run, truth, before, localTimestamp });
  });
});
