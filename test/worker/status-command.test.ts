import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { StatusReport } from '../../src/commands/status-report.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { workerConfig } from './helpers.js';

describe('pitwall status after real runs', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let env: Record<string, string>;
  let report: StatusReport;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 17 })]);
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    // Real runs, in-process to keep the file quick; `status` itself runs as the command.
    const logger = createSilentLogger();
    expect((await runSync({ pool: db.pool, config: workerConfig(db, sim), logger }, { job: 'full' })).status).toBe('succeeded');
    const wrongKey = { ...workerConfig(db, sim), apiKey: 'wrong-key' };
    expect((await runSync({ pool: db.pool, config: wrongKey, logger }, { job: 'live' })).status).toBe('failed');
    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    report = JSON.parse(status.stdout) as StatusReport;
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('gives the last run of each job with its outcome', () => {
    expect(report.jobs.map((j) => [j.job, j.status, j.last_success_at !== null])).toEqual([
      ['full', 'succeeded', true],
      ['season', null, false],
      ['live', 'failed', false],
    ]);
    expect(report.jobs[2]?.error).toMatch(/RequestValid 0/);
  });

  it('gives the freshness of every warehouse table', () => {
    expect(report.freshness.map((f) => f.table).sort()).toEqual(Object.keys(warehouseTables).sort());
    const results = report.freshness.find((f) => f.table === 'results');
    expect(Date.now() - Date.parse(results?.newest_synced_at ?? '')).toBeLessThan(10 * 60_000);
  });

  it('lists the failing scopes', () => {
    expect(report.failing).toContainEqual(expect.objectContaining({ endpoint: 'results_feed', status: 'invalid' }));
  });

  it('prints the same for a person', async () => {
    const text = (await runCli(['status'], env)).stdout;
    expect(text).toMatch(/^Jobs$/m);
    expect(text).toMatch(/^season\s+never run/m);
    expect(text).toMatch(/^Freshness/m);
    expect(text).toMatch(/^point_standings\s+\d{4}-\d\d-\d\d /m);
    expect(text).toMatch(/^Failing scopes$/m);
  });
});
