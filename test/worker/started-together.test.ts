import { describe, expect, it } from 'vitest';

import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';

import { CLEAN_EXIT, logLines, NO_SCHEDULES, ownersNow, sleep, stopAll, useWatcherPool } from './process.js';

const SITES = ['track-a', 'track-b', 'track-c', 'track-d', 'track-e', 'track-f'];

/**
 * Two workers started together on one warehouse (a deploy, a compose `--scale`): each waits one
 * beat after making itself known before it takes sources, so each takes its share from the first,
 * and no worker ever owns more than ⌈sources / workers⌉ + 1, not even for a moment before the other
 * has looked. Watched from outside, every 50 ms, until both have said they started.
 */
describe('two workers started together', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 34, sites: SITES.length, faults: { latencyMs: 50 } });
  const watcher = useWatcherPool(db);
  const sourcesEnv = useSourcesFile(SITES);

  it('share the sources from their first take', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key), { ...NO_SCHEDULES, PITWALL_MAX_RPS: '2', PITWALL_LOG_LEVEL: 'info' });
    const workers = [startCli(['worker'], env), startCli(['worker'], env)];
    let most = 0;
    const stderr = ['', ''];
    workers.forEach((w, i) => w.child.stderr?.on('data', (d: Buffer) => (stderr[i] += d.toString())));
    const started = () => stderr.every((s) => logLines(s.slice(0, s.lastIndexOf('\n') + 1)).some((l) => l.msg === 'worker started'));
    try {
      const deadline = performance.now() + 60_000;
      while (!started()) {
        if (performance.now() > deadline) throw new Error('the workers did not both start');
        for (const n of (await ownersNow(watcher)).values()) most = Math.max(most, n);
        await sleep(50);
      }
      // Each owns its share once both have started.
      const owners = await ownersNow(watcher);
      expect(workers.map((w) => owners.get(w.child.pid!))).toEqual([SITES.length / 2, SITES.length / 2]);
    } finally {
      expect(await stopAll(workers)).toEqual(workers.map(() => CLEAN_EXIT));
    }
    expect(most).toBeLessThanOrEqual(Math.ceil(SITES.length / workers.length) + 1);
    // No worker ran more sources than its share: the runs are each owner's own sources.
    const { rows: runs } = await watcher.query<{ pid: number; n: number }>(`SELECT pid, count(DISTINCT source)::int AS n FROM pitwall.sync_runs GROUP BY pid`);
    expect(runs.every((r) => r.n <= SITES.length / 2)).toBe(true);
  });
});
