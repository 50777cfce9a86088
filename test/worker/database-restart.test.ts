import { describe, expect, it } from 'vitest';

import { RESUME_BOUND_MS } from '../../bench/continued-restart.js';
import { minimumRequests } from '../../bench/lib/min-requests.js';
import { BEAT_MS } from '../../src/coordination/lease.js';
import { restartEmbeddedServer } from '../../src/embedded/server.js';
import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { CLEAN_EXIT, dbNow, logLines, NO_SCHEDULES, overlappingRuns, ownersNow, sleep, stopAll, waitForCount } from './process.js';

/**
 * Two small sites (343 requests each at the least), one per worker once shared out. A tiny site
 * (110) is too small to judge a ratio on: what a cut costs is a few requests whatever the site's
 * size (those in flight, the roots asked again), and a busy machine's cut cost 12 of its 11.
 */
const SITES = ['track-a', 'track-b'];

/**
 * PostgreSQL restarted (fast: every session ended) under two workers whose start-up fulls are
 * running, as a managed database's minor update does. Both workers stay up; the runs the restart
 * cut off start again soon after the server answers, with no upstream back-off (the failure was
 * the warehouse's, not the upstream's), each continuing the run it cut off; the sources are shared
 * out again within two beats; the warehouse ends equal to the truth.
 */
describe('PostgreSQL restarted under two running workers', () => {
  const { db, sim } = useWarehouse('embedded', { scale: 'small', seed: 33, sites: SITES.length, faults: { latencyMs: 30 } });
  const sourcesEnv = useSourcesFile(SITES);

  it('keeps both up, runs the cut-off fulls again within the bound and shares the sources again', async () => {
    const env = sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key), { ...NO_SCHEDULES, PITWALL_MAX_RPS: '12', PITWALL_LOG_LEVEL: 'info' });
    const workers = [startCli(['worker'], env, 240_000), startCli(['worker'], env, 240_000)];
    let resumedMs: number[] = [];
    let sharedMs = -1;
    let up = new Date(0);
    try {
      await waitForCount(db.pool, `SELECT count(DISTINCT pid)::int AS n FROM pitwall.sync_runs WHERE status = 'running' AND requests > 0`, 2);
      await restartEmbeddedServer(db.dir!);
      const answered = performance.now();
      up = await dbNow(db.pool);
      // Every source's full begun again after the restart (by either worker).
      await waitForCount(db.pool, `SELECT count(DISTINCT source)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND started_at > '${up.toISOString()}'`, SITES.length);
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
      await waitForCount(db.pool, `SELECT count(DISTINCT source)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`, SITES.length);
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
    // Each full the restart cut off was continued, not redone: the simulator's own count of the
    // site's requests (both parts', whatever the cut run's row had recorded) stays within 1.1 x the
    // site's minimum. The fulls were the only runs, so the count is theirs alone.
    expect((await db.pool.query(`SELECT DISTINCT job FROM pitwall.sync_runs`)).rows).toEqual([{ job: 'full' }]);
    const { rows: continued } = await db.pool.query<{ source: string; continues: number | null }>(
      `SELECT DISTINCT ON (source) source, continues_run_id::int AS continues
         FROM pitwall.sync_runs
        WHERE job = 'full' AND status = 'succeeded'
          AND source IN (SELECT source FROM pitwall.sync_runs WHERE job = 'full' AND status <> 'succeeded' AND started_at < $1)
        ORDER BY source, run_id`,
      [up],
    );
    expect(continued.map((c) => c.source).sort()).toEqual(SITES);
    // The simulator numbers its sites from 1, in the order of sim.sites.
    const { bySite } = (await (await fetch(`${sim.url}/__simulator/requests`)).json()) as { bySite: Record<number, { requests: number }> };
    const figures = continued.map((c) => {
      const i = SITES.indexOf(c.source);
      return { source: c.source, continued: c.continues !== null, requests: bySite[i + 1]!.requests, minimum: minimumRequests(sim.sites[i]!.world.truth()).total };
    });
    console.info(`continued after the restart: ${figures.map((f) => `${f.source} ${f.requests} / ${f.minimum}`).join(', ')} requests`);
    for (const f of figures) expect({ source: f.source, continued: f.continued, within: f.requests <= 1.1 * f.minimum }).toEqual({ source: f.source, continued: true, within: true });
  }, 300_000);
});
