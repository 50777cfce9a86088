import { describe, expect, it } from 'vitest';

import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { terminateBackends } from '../helpers/terminate-backends.js';

import { NO_SCHEDULES, ownersNow, sleep, useWatcherPool, waitForCount, WATCHER } from './process.js';

/**
 * One worker, one source (MRP_API_KEY, no sources file), no HTTP endpoint: after its lock session
 * is lost it runs nothing, and nothing of its own holds Node's event loop (its beat timer is
 * unref'd, its source's schedules are stopped with the source). It must still stay up, open a new
 * session at its next beat and take the source again; it once exited with Node's code 13 instead
 * (a PostgreSQL restart under it did the same, bench/continued-restart.ts).
 */
describe('a lone worker whose lock session is lost', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 37 });
  const watcher = useWatcherPool(db);

  it('stays up and takes its source again', async () => {
    const worker = startCli(['worker'], { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', ...NO_SCHEDULES });
    try {
      await waitForCount(watcher, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
      // Every connection of the worker, as a restart of the server ends them (its pool's idle
      // clients too, which would otherwise hold the loop).
      const ended = await terminateBackends(watcher, 'application_name <> $1', [WATCHER]);
      expect(ended.length).toBeGreaterThan(0);
      // Gone from the server, and their locks with them, before the owners are read again: the
      // source is then held by a session the worker opened after the loss.
      await waitForCount(watcher, `SELECT (count(*) = 0)::int AS n FROM pg_stat_activity WHERE pid = ANY('{${ended.join(',')}}')`, 1);
      for (;;) {
        if (worker.child.exitCode !== null) throw new Error(`the worker exited with ${worker.child.exitCode}: ${(await worker.exited).stderr.slice(-2000)}`);
        const owners = await ownersNow(watcher);
        if (owners.get(worker.child.pid!) === 1) break;
        await sleep(100);
      }
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect((await worker.exited).code).toBe(0);
  });
});
