import { describe, expect, it } from 'vitest';

import { TAKEOVER_BOUND_MS } from '../../src/worker/ownership.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, dbNow, logLines, NO_SCHEDULES, overlappingRuns, stopAll, waitForCount } from './process.js';

const SOURCE = 'track-a';

describe('a worker killed (kill -9) halfway through a full sync, beside another worker', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 12, sites: 1 });
  const sourcesEnv = useSourcesFile([SOURCE]);

  it('loses its source to the live worker, whose catch-up reruns the full within TAKEOVER_BOUND_MS of the kill, to the truth', async () => {
    // At 8 requests a second a tiny full (~110 requests) lasts ~14 s: long enough to be killed halfway.
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, [sim.key], { ...NO_SCHEDULES, PITWALL_MAX_RPS: '8', PITWALL_LOG_LEVEL: 'info' });
    const workers = [startCli(['worker'], env), startCli(['worker'], env)];
    let killed: number | undefined;
    let killedAt = new Date(0);
    let rerun = false;
    try {
      // Halfway, as its heartbeat (every 5 s) reports it.
      await waitForCount(db.pool, `SELECT max(requests)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`, 40);
      const { rows } = await db.pool.query<{ pid: number }>(`SELECT pid FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`);
      killed = rows[0]?.pid;
      const victim = workers.find((w) => w.child.pid === killed);
      expect(victim).toBeDefined();
      victim!.child.kill('SIGKILL');
      killedAt = await dbNow(db.pool);
      const other = `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND pid <> ${killed}`;
      rerun = await waitForCount(db.pool, other, 1, TAKEOVER_BOUND_MS + 5_000).then(() => true, () => false);
      if (rerun) await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, 1);
    } finally {
      const survivors = workers.filter((w) => w.child.pid !== killed);
      expect(await stopAll(survivors)).toEqual(survivors.map(() => CLEAN_EXIT));
      await Promise.all(workers.map((w) => w.exited));
    }
    // The survivor's catch-up reran the full, and said so once: never that it backs off. Before,
    // it may say it waits for the dead run to be found dead (unless its live and season catch-ups
    // outlast that wait); the runs' times below show it did not start beside it.
    const survivorSaid = logLines((await workers.find((w) => w.child.pid !== killed)!.exited).stderr).map((l) => l.msg);
    const catchUp = survivorSaid.filter((m) => /^catch-up of full|^catching up: full/.test(m) && !/waits for a run of it/.test(m));
    expect({ rerun, catchUp }).toEqual({ rerun: true, catchUp: [expect.stringMatching(/^catching up: full/)] });
    const { rows: runs } = await db.pool.query<{ status: string; pid: number; after_kill_ms: number }>(
      `SELECT status, pid, extract(epoch FROM started_at - $1::timestamptz)::float8 * 1000 AS after_kill_ms FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`,
      [killedAt],
    );
    expect(runs.map((r) => [r.status, r.pid === killed])).toEqual([
      ['abandoned', true],
      ['succeeded', false],
    ]);
    expect(runs[1]!.after_kill_ms).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(await overlappingRuns(db.pool)).toEqual([]);
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.key), SOURCE)).toEqual({});
    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    const shown = JSON.stringify(JSON.parse(status.stdout));
    expect(shown).toContain('"abandoned"');
    expect(shown).toContain('"succeeded"');
  });
});
