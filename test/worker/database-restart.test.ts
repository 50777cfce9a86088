import { describe, expect, it } from 'vitest';

import { minimumRequests } from '../../bench/lib/min-requests.js';
import { BEAT_MS } from '../../src/coordination/lease.js';
import { restartEmbeddedServer } from '../../src/embedded/server.js';
import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, dbNow, logLines, NO_SCHEDULES, overlappingRuns, ownersNow, sleep, stopAll, waitForCount } from './process.js';

const SITES = ['track-a', 'track-b', 'track-c', 'track-d'];

/** How soon after the server answers again the runs it cut off must be going again (issue's bound, not a guess at this machine's speed). */
const RESUME_BOUND_MS = 30_000;

/**
 * PostgreSQL restarted (fast: every session ended) under two workers whose start-up fulls are
 * running, as a managed database's minor update does. Both workers stay up; the runs the restart
 * cut off start again soon after the server answers, with no upstream back-off (the failure was
 * the warehouse's, not the upstream's), each continuing the run it cut off; the sources are shared
 * out again within two beats; the warehouse ends equal to the truth.
 */
describe('PostgreSQL restarted under two running workers', () => {
  const { db, sim } = useWarehouse('embedded', { scale: 'tiny', seed: 33, sites: SITES.length, faults: { latencyMs: 30 } });
  const sourcesEnv = useSourcesFile(SITES);

  it('keeps both up, runs the cut-off fulls again within the bound and shares the sources again', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key), { ...NO_SCHEDULES, PITWALL_MAX_RPS: '8', PITWALL_LOG_LEVEL: 'info' });
    const workers = [startCli(['worker'], env, 240_000), startCli(['worker'], env, 240_000)];
    let resumedMs: number[] = [];
    let sharedMs = -1;
    let up = new Date(0);
    try {
      await waitForCount(db.pool, `SELECT count(DISTINCT pid)::int AS n FROM pitwall.sync_runs WHERE status = 'running' AND requests > 0`, 2, 90_000);
      await restartEmbeddedServer(db.dir!);
      const answered = performance.now();
      up = await dbNow(db.pool);
      // Every source's full begun again after the restart (by either worker).
      await waitForCount(db.pool, `SELECT count(DISTINCT source)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND started_at > '${up.toISOString()}'`, SITES.length, 120_000);
      for (;;) {
        const owners = await ownersNow(db.pool).catch(() => new Map<number, number>());
        if (workers.every((w) => owners.get(w.child.pid!) === SITES.length / 2)) break;
        if (performance.now() - answered > 60_000) throw new Error(`the sources were not shared out again: ${JSON.stringify([...owners])}`);
        await sleep(100);
      }
      sharedMs = performance.now() - answered;
      const { rows } = await db.pool.query<{ ms: number }>(
        `SELECT extract(epoch FROM min(started_at) - $1::timestamptz)::float8 * 1000 AS ms FROM pitwall.sync_runs WHERE job = 'full' AND started_at > $1 GROUP BY source`,
        [up],
      );
      resumedMs = rows.map((r) => Math.round(r.ms));
      await waitForCount(db.pool, `SELECT count(DISTINCT source)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, SITES.length, 150_000);
      // Both alive throughout.
      expect(workers.map((w) => w.child.exitCode)).toEqual([null, null]);
    } finally {
      expect(await stopAll(workers)).toEqual(workers.map(() => CLEAN_EXIT));
    }
    console.info(`PostgreSQL restart: fulls going again ${resumedMs.join(', ')} ms after the server answered; sources shared out again after ${Math.round(sharedMs)} ms`);
    expect(resumedMs.filter((ms) => ms > RESUME_BOUND_MS)).toEqual([]);
    // Shared out within two beats of a worker's new session, which it opens at its next beat.
    expect(sharedMs).toBeLessThan(3 * BEAT_MS + 5_000);
    const logs = await Promise.all(workers.map(async (w) => logLines((await w.exited).stderr).map((l) => l.msg)));
    expect(logs.flat().filter((m) => /backing off/.test(m))).toEqual([]);
    expect(await overlappingRuns(db.pool)).toEqual([]);
    for (const [i, site] of SITES.entries()) expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.sites[i]!.key), site)).toEqual({});
    // Each full the restart cut off was continued, not redone: the parts' requests together stay
    // within 1.1 x the site's minimum.
    const { rows: continued } = await db.pool.query<{ source: string; continues: number | null; total: number }>(
      `SELECT DISTINCT ON (source) source, continues_run_id::int AS continues, (requests + requests_before)::int AS total
         FROM pitwall.sync_runs
        WHERE job = 'full' AND status = 'succeeded'
          AND source IN (SELECT source FROM pitwall.sync_runs WHERE job = 'full' AND status <> 'succeeded' AND started_at < $1)
        ORDER BY source, run_id`,
      [up],
    );
    expect(continued.length).toBeGreaterThanOrEqual(2);
    const minimum = (source: string) => minimumRequests(sim.sites[SITES.indexOf(source)]!.world.truth()).total;
    console.info(`continued after the restart: ${continued.map((c) => `${c.source} ${c.total} / ${minimum(c.source)}`).join(', ')} requests`);
    for (const c of continued) expect({ source: c.source, continued: c.continues !== null, within: c.total <= 1.1 * minimum(c.source) }).toEqual({ source: c.source, continued: true, within: true });
  }, 300_000);
});
