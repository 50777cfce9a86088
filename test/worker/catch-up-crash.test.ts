import { describe, expect, it } from 'vitest';

import { catchUpDelayMs } from '../../src/worker/catch-up-delay.js';
import { TAKEOVER_BOUND_MS } from '../../src/worker/ownership.js';
import { startCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';

import { startWorker, until } from './faults.js';
import { dbNow, logLines, NO_SCHEDULES, overlappingRuns, waitForCount } from './process.js';

const BACKING_OFF = 'catch-up of full backing off after 2 failed catch-up(s)';

/** A full walk that has reported progress (a heartbeat comes every 5 s). */
const WALKS = `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND scopes_done > 0`;

/**
 * A worker killed (-9) in the middle of its full catch-up and restarted at once, as a service
 * manager does: the restarted worker owns the source at once, but its catch-up waits for the dead
 * run to be found dead (its heartbeat stale, its lock free) instead of walking beside it, then runs
 * the full again, first and within TAKEOVER_BOUND_MS of the death (a first death is taken to be
 * the machine's, not the run's). When that run's worker dies too, the third worker's catch-up of
 * the full backs off, and live and season, which a full that is not running holds up no longer,
 * catch up meanwhile. The upstream is slow (400 ms a request, one at a time), as a real one may be.
 */
describe('a worker that crashes during its catch-up', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 22 });

  it('has its full rerun once by the restarted worker; crashing again, the full backs off and live and season catch up', async () => {
    sim.setFaults({ latencyMs: 400 });
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_CONCURRENCY: '1', PITWALL_SHUTDOWN_TIMEOUT_MS: '2000', ...NO_SCHEDULES };
    /**
     * Starts a worker and kills it once the `walks`-th full walk has reported progress (or after
     * 90 s): whether it walked, when it was killed, and its catch-up's lines.
     */
    const crashOnceWalking = async (walks: number) => {
      const worker = startCli(['worker'], env);
      const walked = await waitForCount(db.pool, WALKS, walks, 90_000).then(() => true, () => false);
      worker.child.kill('SIGKILL');
      const killedAt = await dbNow(db.pool);
      const said = logLines((await worker.exited).stderr).map((l) => l.msg);
      return { walked, killedAt, said, catchUp: said.filter((m) => /^catch-up of|^catching up:/.test(m)) };
    };
    const first = await crashOnceWalking(1);
    expect({ walked: first.walked, said: first.said }).toEqual({ walked: true, said: first.said });
    // Restarted at once, the worker owns the source at once; its catch-up finds the dead run dead
    // STALE_AFTER_MS after its last heartbeat and runs the full again, saying so once (it may say
    // first that it waits for that), never that it backs off.
    const second = await crashOnceWalking(2);
    const full = second.catchUp.filter((m) => /full/.test(m) && !/waits for a run of it/.test(m));
    expect({ walked: second.walked, full }).toEqual({ walked: true, full: [expect.stringMatching(/^catching up: full/)] });

    const third = startWorker(env);
    try {
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'abandoned'`, 2);
      // The catch-up looks again once live's and season's catch-ups, run one after the other, are
      // done, and says it backs off: the worker is stopped once it has said so.
      await waitForCount(db.pool, `SELECT count(DISTINCT job)::int AS n FROM pitwall.sync_runs WHERE job <> 'full' AND status = 'succeeded'`, 2);
      await until('the catch-up of the full has backed off', () => third.lines().some((l) => l.msg.startsWith(BACKING_OFF)), 120_000);
    } finally {
      third.child.kill('SIGTERM');
    }
    const r = await third.exited;
    expect(r.code).toBe(0);
    // Two full walks, both dead; no third.
    const { rows } = await db.pool.query(`SELECT job, trigger, status FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id`);
    expect(rows).toEqual([
      { job: 'full', trigger: 'catch-up', status: 'abandoned' },
      { job: 'full', trigger: 'catch-up', status: 'abandoned' },
    ]);
    expect(await overlappingRuns(db.pool)).toEqual([]);
    // Live and season catch up, in the second worker or the third.
    const { rows: others } = await db.pool.query(`SELECT DISTINCT job FROM pitwall.sync_runs WHERE job <> 'full' AND status = 'succeeded' ORDER BY job`);
    expect(others).toEqual([{ job: 'live' }, { job: 'season' }]);
    // The first death is forgiven (the machine's, most likely); from the second the full waits the
    // backoff's first step, as after a failure.
    const backoff = logLines(r.stderr).find((l) => l.msg.startsWith(BACKING_OFF));
    const { rows: last } = await db.pool.query<{ at: Date }>(`SELECT max(finished_at) AS at FROM pitwall.sync_runs WHERE job = 'full'`);
    expect(new Date(String(backoff?.retryAt)).getTime() - last[0]!.at.getTime()).toBe(catchUpDelayMs(1));
    // The rerun started within the bound a dead worker's runs are taken over in, whatever else
    // the restarted worker had to catch up: the full goes first.
    const { rows: fulls } = await db.pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at - $1::timestamptz)::float8 * 1000 AS ms FROM pitwall.sync_runs WHERE job = 'full' ORDER BY run_id DESC LIMIT 1`,
      [first.killedAt],
    );
    const said = second.catchUp;
    expect({ rerunAfterMs: fulls[0]!.ms < TAKEOVER_BOUND_MS ? 'within the bound' : fulls[0]!.ms, said }).toEqual({ rerunAfterMs: 'within the bound', said });
    // A hang guard: the sum of the waits' own bounds.
  }, 2 * (90_000 + 10_000) + 60_000 + 90_000 + 120_000 + 30_000);
});
