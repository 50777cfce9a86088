import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

describe('the log of a run', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 6 })]);
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('is JSON lines, each carrying the run id and the job', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } });
    // A few faults, so retry and failure lines are among them.
    sim.setFaults({ rate: 0.05, kinds: ['http500'], retryAfterSeconds: 0 });
    const config = workerConfig(db, sim, { PITWALL_MAX_RETRY_WAIT_MS: '50' });
    const summary = await runSync({ pool: db.pool, config, logger, now: simulatorClock(sim) }, { job: 'live' });
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(5);
    expect(parsed.filter((l) => l.runId !== summary.runId || l.job !== 'live')).toEqual([]);
    expect(parsed.some((l) => l.endpoint === 'results' || l.path === '/v2/schedules/results/')).toBe(true);
  });
});
