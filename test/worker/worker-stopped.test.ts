import { describe, expect, it } from 'vitest';

import { STALE_AFTER_MS } from '../../src/sync/heartbeat.js';
import { TAKEOVER_BOUND_MS } from '../../src/worker/ownership.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, NO_SCHEDULES, overlappingRuns, sleep, stopAll, waitForCount } from './process.js';

const SOURCE = 'track-a';

/**
 * A worker that is only slow (SIGSTOP: a paused container, a long GC, a swapped-out machine) keeps
 * its session and with it its locks. Stopped for as long as a dead worker takes to be replaced
 * (TAKEOVER_BOUND_MS: a beat, a stale heartbeat and the catch-up's second), and so past every
 * timeout in it, it must still be the only one running its source's full.
 */
describe('a worker stopped (SIGSTOP) halfway through a full sync, beside another worker', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 13, sites: 1 });
  const sourcesEnv = useSourcesFile([SOURCE]);

  it('keeps its source: nobody runs the full beside it, a manual sync of it is skipped, and resumed it finishes to the truth', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, [sim.key], { ...NO_SCHEDULES, PITWALL_MAX_RPS: '8' });
    const workers = [startCli(['worker'], env, 180_000), startCli(['worker'], env, 180_000)];
    let stopped: number | undefined;
    try {
      await waitForCount(db.pool, `SELECT max(requests)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`, 40, 60_000);
      const { rows } = await db.pool.query<{ pid: number }>(`SELECT pid FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`);
      stopped = rows[0]?.pid;
      const owner = workers.find((w) => w.child.pid === stopped);
      expect(owner).toBeDefined();
      owner!.child.kill('SIGSTOP');
      const since = performance.now();
      try {
        // Its heartbeat is stale now; only its lock says it lives. A manual sync marks dead runs first.
        await sleep(STALE_AFTER_MS + 1_000);
        const manual = await runCli(['sync', '--job', 'full', '--source', SOURCE], env);
        expect(manual.code).toBe(3);
        await sleep(TAKEOVER_BOUND_MS - (performance.now() - since));
        const { rows: meanwhile } = await db.pool.query(`SELECT trigger, status, pid FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`);
        expect(meanwhile).toEqual([
          { trigger: 'catch-up', status: 'running', pid: stopped },
          { trigger: 'manual', status: 'skipped', pid: expect.any(Number) },
        ]);
      } finally {
        owner!.child.kill('SIGCONT');
      }
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1, 60_000);
    } finally {
      expect(await stopAll(workers)).toEqual(workers.map(() => CLEAN_EXIT));
    }
    const { rows: runs } = await db.pool.query(`SELECT job, trigger, status, pid = $1 AS stopped_one FROM pitwall.sync_runs ORDER BY run_id`, [stopped]);
    expect(runs).toEqual([
      { job: 'full', trigger: 'catch-up', status: 'succeeded', stopped_one: true },
      { job: 'full', trigger: 'manual', status: 'skipped', stopped_one: false },
    ]);
    expect(await overlappingRuns(db.pool)).toEqual([]);
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.key), SOURCE)).toEqual({});
  }, 150_000);
});
