import { describe, expect, it } from 'vitest';

import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { usePgBouncer } from '../helpers/pgbouncer.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, heldUpstream, NEVER_TIMES_OUT, NO_SCHEDULES, stopAll, waitForCount } from './process.js';

const PASSWORD = 'hunter2-pooler-secret';
const withPassword = (url: string) => Object.assign(new URL(url), { password: PASSWORD }).toString();

describe('pitwall through a real PgBouncer', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 21 });
  const transaction = usePgBouncer('transaction');
  const session = usePgBouncer('session');
  const upstream = () => ({ MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' });
  const runs = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.sync_runs')).rows[0]!.n;

  it('refuses to start a worker through transaction pooling: exit 2, one line naming PITWALL_LOCK_DATABASE_URL', async () => {
    const r = await runCli(['worker'], { ...upstream(), ...NO_SCHEDULES, DATABASE_URL: withPassword(transaction.through(db.url)) });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^pitwall: DATABASE_URL \(postgres:\/\/postgres:\*\*\*\*@127\.0\.0\.1:\d+\/\w+\) reaches a transaction-pooling PgBouncer \(or similar\): session advisory locks would not hold there.*PITWALL_LOCK_DATABASE_URL/),
    ]);
    expect(r.stderr + r.stdout).not.toContain(PASSWORD);
    expect(await runs()).toBe(0);
  });

  it('refuses a sync whose pool goes through transaction pooling though its locks do not: exit 2, one line', async () => {
    const env = { ...upstream(), DATABASE_URL: transaction.through(db.url), PITWALL_LOCK_DATABASE_URL: db.url };
    const r = await runCli(['sync'], env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^pitwall: DATABASE_URL \(.*\) reaches a transaction-pooling PgBouncer \(or similar\): pitwall's named prepared statements would fail there; .*max_prepared_statements/),
    ]);
    expect(await runs()).toBe(0);
  });

  it('works through session pooling: a worker syncs, a manual sync of its job is skipped (its locks on PostgreSQL itself), the warehouse equals the truth', async () => {
    // The worker's requests are held until the manual sync has been refused: its full is running
    // the whole time, however long the manual sync takes to start (no held attempt times out).
    const gate = await heldUpstream(sim.url);
    const env = { ...upstream(), MRP_API_BASE_URL: gate.url, DATABASE_URL: session.through(db.url) };
    const worker = startCli(['worker'], { ...env, ...NO_SCHEDULES, ...NEVER_TIMES_OUT });
    try {
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`, 1);
      // Its job lock, taken through the pooler, holds against another process's, taken on a
      // lock session that goes to PostgreSQL itself.
      expect((await runCli(['sync', '--job', 'full'], { ...env, MRP_API_BASE_URL: sim.url, PITWALL_LOCK_DATABASE_URL: db.url })).code).toBe(3);
      gate.release();
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
    } finally {
      gate.release();
      expect(await stopAll([worker])).toEqual([CLEAN_EXIT]);
    }
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
