import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { workerConfig } from './helpers.js';
import { waitForCount } from './process.js';
import { inconsistentScopes } from './scope-consistency.js';

/**
 * PITWALL_SHUTDOWN_TIMEOUT_MS of the drain's test: so long that a drain of 150 ms requests never
 * reaches it, however busy the machine, while a run left to go on (or cancelled at it) would show.
 */
const DRAIN_ROOM_MS = 45_000;
/** PITWALL_SHUTDOWN_TIMEOUT_MS of the cancel's test, whose responses are held for HELD_MS. */
const TIMEOUT_MS = 3_000;
const HELD_MS = 60_000;
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
    const cli = startCli(['sync', '--job', 'full'], { ...env, PITWALL_SHUTDOWN_TIMEOUT_MS: String(DRAIN_ROOM_MS) });
    await waitForCount(db.pool, LOADED, 15);
    const sent = performance.now();
    cli.child.kill('SIGTERM');
    const r = await cli.exited;
    // The drain ended the run, not the timeout.
    expect(r.exitedAt - sent).toBeLessThan(DRAIN_ROOM_MS);
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
    // Every response is held from the run's first request: only the abort can end the run. (Set
    // before the start: the run's first requests can all be sent before its row is seen running.)
    sim.setFaults({ rate: 1, kinds: ['slow'], slowMs: HELD_MS });
    const before = sim.requests().total;
    const cli = startCli(['sync', '--job', 'full'], { ...env, PITWALL_SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS) });
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`, 1);
    // A held request is in flight when the signal comes.
    await vi.waitFor(() => expect(sim.requests().total).toBeGreaterThan(before), { timeout: HELD_MS, interval: 20 });
    const sent = performance.now();
    cli.child.kill('SIGTERM');
    const r = await cli.exited;
    expect(r.code).toBe(130);
    // It waited out the timeout, then cancelled rather than waiting for the held answers.
    expect(r.exitedAt - sent).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(r.exitedAt - sent).toBeLessThan(HELD_MS);
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
