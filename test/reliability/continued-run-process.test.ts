import { beforeAll, describe, expect, it } from 'vitest';

import { minimumRequests } from '../../bench/lib/min-requests.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { until } from './helpers/process.js';

/**
 * A real `pitwall sync` stopped by SIGTERM or SIGKILL early, in the middle, during its last
 * scopes, and once every request was sent (while the last loads commit and the run's record is
 * closed); then a second `pitwall sync`, which continues it. The second asks only for the scopes
 * the first had not finished (the roots again), exactly as the first's record says, and the
 * warehouse then equals the truth value by value. A driver is renamed before each pair, so each
 * first part has something to write.
 */
const POINTS = [0.05, 0.5, 0.95, 1] as const;
const ROOTS = 4;

describe.each(['SIGTERM', 'SIGKILL'] as const)('a pitwall sync stopped by %s', (signal) => {
  const { db, sim } = useWarehouse('postgres', { scale: 'small', seed: 43, faults: { latencyMs: 5 } });
  let env: Record<string, string>;
  let minimum = 0;
  beforeAll(() => {
    // Paced, so a stop lands where it is aimed on any machine: the walk outlasts the aim.
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '100', PITWALL_LOG_LEVEL: 'warn' };
    minimum = minimumRequests(sim.world.truth()).total;
  });

  it.each(POINTS)('at %s of its requests is continued by the next run, which asks only for what it had not finished', async (share) => {
    const drivers = (await fetchTruth(sim.url)).drivers as Array<{ driver_id: number }>;
    sim.world.renameDriver(drivers[Math.floor(share * (drivers.length - 1))]!.driver_id, { lastName: `Stopped${signal}${share}` });
    const base = sim.requests().total;
    const first = startCli(['sync', '--fresh', '--json'], env);
    expect(await until(() => sim.requests().total - base >= Math.min(minimum, Math.ceil(share * minimum)), first)).toBe(true);
    first.child.kill(signal);
    const stopped = await first.exited;
    if (signal === 'SIGTERM' && share === 1 && stopped.code === 0) {
      // Every request was sent: the drain may find the walk ended, and the run succeeds. Nothing
      // is left to continue, and the next run starts afresh.
      const next = JSON.parse((await runCli(['sync', '--json'], env)).stdout) as { status: string; continues?: unknown };
      expect(next).toMatchObject({ status: 'succeeded' });
      expect(next.continues).toBeUndefined();
      return;
    }
    expect(signal === 'SIGKILL' ? stopped.signal : stopped.code).toBe(signal === 'SIGKILL' ? 'SIGKILL' : 130);
    const firstRequests = sim.requests().total - base;
    const [{ run_id: firstRun, status }] = (
      await db.pool.query<{ run_id: number; status: string }>(`SELECT run_id::int, status FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT 1`)
    ).rows as [{ run_id: number; status: string }];
    // The killed run is still `running` until the next one's lock takes it for dead (its process is gone).
    expect(status).toBe(signal === 'SIGKILL' ? 'running' : 'interrupted');
    const finished = (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = $1', [firstRun])).rows[0]!.n;

    const second = await runCli(['sync', '--json'], env);
    expect(second.code, second.stderr.slice(0, 500)).toBe(0);
    const summary = JSON.parse(second.stdout) as { status: string; requests: number; continues?: { runId: number }; scopes: { carried: number } };
    expect(summary).toMatchObject({ status: 'succeeded', continues: { runId: firstRun } });
    // Exactly the first part's account: what it finished is not asked again, roots aside.
    expect(summary.requests).toBeLessThanOrEqual(minimum - finished + ROOTS);
    expect(summary.scopes.carried).toBeGreaterThanOrEqual(finished - ROOTS);
    const total = firstRequests + summary.requests;
    console.info(`${signal} at ${share}: ${firstRequests} requests, ${finished} scopes finished on record, then ${summary.requests}: ${(total / minimum).toFixed(3)} x the minimum (${minimum})`);
    if (signal === 'SIGTERM') expect(total).toBeLessThanOrEqual(1.05 * minimum);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    const statuses = (await db.pool.query<{ status: string }>('SELECT status FROM pitwall.sync_runs WHERE run_id = $1', [firstRun])).rows;
    expect(statuses).toEqual([{ status: signal === 'SIGKILL' ? 'abandoned' : 'interrupted' }]);
  });
});
