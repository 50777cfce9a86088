import { describe, expect, it } from 'vitest';

import { LEASE_MS } from '../../src/coordination/lease.js';
import { startCli } from '../helpers/cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, logLines, NO_SCHEDULES, overlappingRuns, sleep, stopAll, waitForCount } from './process.js';

const SOURCE = 'track-a';

/**
 * A worker that is stopped (SIGSTOP: a paused container, a swapped-out machine) halfway through a
 * full, beside another worker. Past the server's idle expiry its session ends and its source
 * passes to the other worker, which runs the full again once the stopped one's run is dead by the
 * rule. Resumed, the stopped worker finds its lease run out before anything else: it sends not one
 * more request (its upstream traffic goes through a proxy of the test's, which counts it) and
 * writes nothing, says so in one line, and opens a new session.
 */
describe('a worker stopped (SIGSTOP) halfway through a full sync, beside another worker', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 13, sites: 1 });
  const sourcesEnv = useSourcesFile([SOURCE]);
  const upstream = useResource('the stopped worker\'s upstream proxy', () => startFaultProxy(sim.url), (p) => p.close());

  it('loses its source to the other worker, and resumed it sends and writes nothing more, says so once and works again', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, [sim.key], { ...NO_SCHEDULES, PITWALL_MAX_RPS: '8', PITWALL_LOG_LEVEL: 'info' });
    const stoppedOne = startCli(['worker'], { ...env, MRP_API_BASE_URL: upstream.url(sim.url) });
    await waitForCount(db.pool, `SELECT max(requests)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`, 20);
    const other = startCli(['worker'], env);
    const workers = [stoppedOne, other];
    let sentAfterResume = -1;
    try {
      stoppedOne.child.kill('SIGSTOP');
      // Counted while it is stopped, as late as can be: what it had written before the signal took
      // hold the kernel still delivers (and the proxy reads) during the stop; that is not a send.
      let sentBefore = 0;
      try {
        // The other worker reruns the full once the server has ended the stopped one's session.
        await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND pid = ${other.child.pid} AND requests > 0`, 1);
      } finally {
        sentBefore = upstream.bytesFromClients();
        stoppedOne.child.kill('SIGCONT');
      }
      // Long enough for anything the resumed worker still meant to send to have gone out.
      await sleep(LEASE_MS / 2);
      sentAfterResume = upstream.bytesFromClients() - sentBefore;
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
    } finally {
      expect(await stopAll(workers)).toEqual(workers.map(() => CLEAN_EXIT));
    }
    expect(sentAfterResume).toBe(0);
    const { rows: runs } = await db.pool.query(`SELECT job, trigger, status, pid FROM pitwall.sync_runs ORDER BY run_id`);
    expect(runs).toEqual([
      { job: 'full', trigger: 'catch-up', status: 'abandoned', pid: stoppedOne.child.pid },
      { job: 'full', trigger: 'catch-up', status: 'succeeded', pid: other.child.pid },
    ]);
    expect(await overlappingRuns(db.pool)).toEqual([]);
    const said = logLines((await stoppedOne.exited).stderr).map((l) => l.msg);
    expect(said.filter((m) => m.startsWith('lost the lock session'))).toHaveLength(1);
    expect(said).toContain('lock session open again; taking sources at the next beat');
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.key), SOURCE)).toEqual({});
  });
});
