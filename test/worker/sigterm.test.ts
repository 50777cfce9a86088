import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { workerConfig } from './helpers.js';
import { waitForCount } from './process.js';
import { inconsistentScopes } from './scope-consistency.js';

const TIMEOUT_MS = 3_000;
const LOADED = `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE status = 'ok'`;

describe('SIGTERM during pitwall sync', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 12 })]);
    env = {
      DATABASE_URL: db.url,
      MRP_API_BASE_URL: sim.url,
      MRP_API_KEY: sim.key,
      PITWALL_MAX_RPS: '0',
      PITWALL_SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
      PITWALL_REQUEST_TIMEOUT_MS: '60000',
    };
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  const lastRun = async () => (await db.pool.query(`SELECT run_id::int, status, error FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT 1`)).rows[0];

  it('lets in-flight requests finish, ends the run interrupted, exits 130, and keeps every committed scope whole', async () => {
    sim.setFaults({ latencyMs: 150 });
    sim.resetRequests();
    const cli = startCli(['sync', '--job', 'full'], env);
    await waitForCount(db.pool, LOADED, 15);
    const sent = performance.now();
    cli.child.kill('SIGTERM');
    const r = await cli.exited;
    // Requests take 150 ms, so draining takes well under the timeout.
    expect(r.exitedAt - sent).toBeLessThan(TIMEOUT_MS);
    expect(r.code).toBe(130);
    const run = await lastRun();
    expect(run).toMatchObject({ status: 'interrupted' });
    // Every request the upstream received was answered and recorded: none was cut off.
    const recorded = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = $1`, [run.run_id]);
    expect(recorded.rows[0].n).toBe(sim.requests().total);
    const { checked, inconsistent } = await inconsistentScopes(db.pool, sim.url);
    expect(checked).toBeGreaterThan(10);
    expect(inconsistent).toEqual([]);
  });

  it('cancels a request still in flight when the timeout passes', async () => {
    const cli = startCli(['sync', '--job', 'full'], env);
    // From now on every response stalls for a minute: only the abort can end the run.
    sim.setFaults({ rate: 1, kinds: ['slow'], slowMs: 60_000 });
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = performance.now();
    cli.child.kill('SIGTERM');
    const r = await cli.exited;
    expect(r.code).toBe(130);
    expect(r.exitedAt - sent).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(r.exitedAt - sent).toBeLessThan(TIMEOUT_MS + 3_000);
    expect(await lastRun()).toMatchObject({ status: 'interrupted' });
    expect((await inconsistentScopes(db.pool, sim.url)).inconsistent).toEqual([]);
  });

  it('leaves work the next run completes: the warehouse then equals the truth', async () => {
    sim.setFaults({});
    const summary = await runSync({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() }, { job: 'full' });
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
