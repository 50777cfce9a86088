import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { requestedPaths, simulatorClock, workerConfig } from './helpers.js';

/**
 * The tiny world of seed 7 has today 2026-07-15 and its next event (400018, schedule 5503) on
 * 2026-07-24: moving the clock 9 days posts exactly that event's results.
 */
describe('the live job against a warehouse a full run has filled', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  let fullWalkRequests = 0;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 7 })]);
    worker = createWorker({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger(), now: simulatorClock(sim) });
    expect((await worker.runJob('full')).status).toBe('succeeded');
    fullWalkRequests = sim.requests().total;
  });
  afterAll(async () => {
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('asks the upstream for the feed alone when nothing was posted', async () => {
    sim.resetRequests();
    const summary = await worker.runJob('live');
    expect(summary.status).toBe('succeeded');
    expect(requestedPaths(sim)).toEqual(['/v2/schedules/results/feed/']);
  });

  it('brings a newly posted event and the standings it moves into the warehouse, equal to the truth', async () => {
    const before = await db.pool.query(`SELECT count(*)::int AS n FROM mrp.results WHERE event_id = 400018`);
    expect(before.rows[0].n).toBe(0);
    sim.world.advanceDays(9);
    sim.resetRequests();
    const summary = await worker.runJob('live');
    expect(summary.status).toBe('succeeded');
    expect(summary.tables.results?.inserted).toBeGreaterThan(0);
    expect(summary.tables.point_standings?.updated).toBeGreaterThan(0);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('spent a handful of requests on it, not a walk of the season', () => {
    const paths = requestedPaths(sim);
    // The feed; results, lineups and passes of the one event; its points schedule's classes and
    // their three standings; the driver statistics.
    expect(paths).toEqual([
      '/v2/points/?ClassId=1000&ScheduleId=5503',
      '/v2/points/?ClassId=1001&ScheduleId=5503',
      '/v2/points/?ClassId=1002&ScheduleId=5503',
      '/v2/points/classes/?ScheduleId=5503',
      '/v2/schedules/driverPasses/?EventId=400018',
      '/v2/schedules/driverStats/',
      '/v2/schedules/lineups/?EventId=400018',
      '/v2/schedules/results/?EventId=400018',
      '/v2/schedules/results/feed/',
    ]);
    expect(paths.length * 10).toBeLessThan(fullWalkRequests);
  });

  it('does not fetch the event again once it is loaded', async () => {
    sim.resetRequests();
    expect((await worker.runJob('live')).status).toBe('succeeded');
    expect(requestedPaths(sim)).toEqual(['/v2/schedules/results/feed/']);
  });
});
