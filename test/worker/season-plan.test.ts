import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { requestedPaths, workerConfig } from './helpers.js';

/**
 * Tiny world, seed 7, today 2026-07-15: seasons 2025 and 2026. Event 400017 ran on 2026-06-27
 * (18 days before today); 400018 is on 2026-07-24; 400001 is in 2025.
 */
describe('the season job', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  const season = (now: string, env: Record<string, string> = {}) => {
    sim.resetRequests();
    const deps = { pool: db.pool, config: workerConfig(db, sim, env), logger: createSilentLogger(), now: () => new Date(now) };
    return runSync(deps, { job: 'season' });
  };
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 7 })]);
    const deps = { pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() };
    expect((await runSync(deps, { job: 'full' })).status).toBe('succeeded');
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('walks only the current and next year, and skips settled events', async () => {
    expect((await season('2026-07-15T12:00:00Z')).status).toBe('succeeded');
    const paths = requestedPaths(sim);
    expect(paths).toContain('/v2/schedules/?ScheduleYear=2026');
    expect(paths).not.toContain('/v2/schedules/?ScheduleYear=2025');
    expect(paths).toContain('/v2/points/schedules/?ScheduleYear=2026');
    expect(paths).toContain('/v2/schedules/results/?EventId=400018');
    expect(paths).not.toContain('/v2/schedules/results/?EventId=400017');
    expect(paths.filter((p) => p.includes('EventId=')).length).toBeLessThan(20);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('revisits an event inside PITWALL_SETTLE_DAYS', async () => {
    await season('2026-07-15T12:00:00Z', { PITWALL_SETTLE_DAYS: '30' });
    expect(requestedPaths(sim)).toContain('/v2/schedules/results/?EventId=400017');
  });

  it('revisits an old event whose results never loaded', async () => {
    await db.pool.query(`UPDATE pitwall.sync_state SET status = 'error' WHERE endpoint = 'results' AND params = 'EventId=400017'`);
    await season('2026-07-15T12:00:00Z');
    expect(requestedPaths(sim)).toContain('/v2/schedules/results/?EventId=400017');
    const { rows } = await db.pool.query(`SELECT status FROM pitwall.sync_state WHERE endpoint = 'results' AND params = 'EventId=400017'`);
    expect(rows[0]?.status).toBe('ok');
  });

  it('reads the current year from the injected clock, not the wall', async () => {
    await season('2025-08-01T12:00:00Z');
    const paths = requestedPaths(sim);
    expect(paths).toContain('/v2/schedules/?ScheduleYear=2025');
    expect(paths).toContain('/v2/schedules/?ScheduleYear=2026');
  });
});
