import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { requestedPaths, simulatorClock, workerConfig } from './helpers.js';

/** A transport that fails every request for one path while `broken` is set. */
function failing(path: string, state: { broken: boolean }): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (state.broken && url.pathname === path) return new Response('gone', { status: 404 });
    return fetch(input, init);
  };
}

describe('a live run whose event refresh failed', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  const state = { broken: false };
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 7 })]);
    const config = workerConfig(db, sim);
    worker = createWorker({
      pool: db.pool,
      config,
      logger: createSilentLogger(),
      now: simulatorClock(sim),
      fetch: failing('/v2/schedules/results/', state),
    });
    expect((await worker.runJob('full')).status).toBe('succeeded');
  });
  afterAll(async () => {
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('is retried by the next live run although the feed has not changed since', async () => {
    sim.world.advanceDays(9);
    state.broken = true;
    expect((await worker.runJob('live')).status).toBe('failed');
    state.broken = false;
    sim.resetRequests();
    expect((await worker.runJob('live')).status).toBe('succeeded');
    expect(requestedPaths(sim)).toContain('/v2/schedules/results/?EventId=400018');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
