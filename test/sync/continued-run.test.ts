import { describe, expect, it } from 'vitest';

import { minimumRequests } from '../../bench/lib/min-requests.js';
import type { StatusReport } from '../../src/commands/status-report.js';
import { loadStatusPage } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import type { RunSummary } from '../../src/sync/run.js';
import { runCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

/**
 * A run stopped before the end of its walk is continued by the next run of its job: that one asks
 * only for the scopes the stopped run had not finished (docs/reliability.md). In process, with a
 * drain at a chosen share of the scopes; test/reliability/continued-run-process.test.ts stops real
 * processes with SIGTERM and SIGKILL.
 */
describe('a full sync stopped before its end', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'small', seed: 41 });
  // The world's truth is built anew on each call: read once per test, not on every progress tick.
  let least: number | undefined;
  const minimum = () => (least ??= minimumRequests(sim.world.truth()).total);

  /** A full sync drained once `share` of the minimum's scopes are done. */
  const stoppedAt = async (share: number, options: { job?: 'full' | 'season' } = {}): Promise<RunSummary> => {
    const drain = new AbortController();
    const summary = await syncOnce(db, sim, {
      ...options,
      drain: drain.signal,
      onProgress: (p) => {
        if (p.done >= share * minimum()) drain.abort();
      },
    });
    expect({ status: summary.status, error: summary.error }).toEqual({ status: 'interrupted', error: expect.any(String) });
    return summary;
  };
  const finishedBy = async (runId: number) =>
    (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = $1', [runId])).rows[0]!.n;

  it('is continued by the next run, which asks only for what it had not finished: the two parts cost at most 1.05 x the minimum', async () => {
    const first = await stoppedAt(0.5);
    const finished = await finishedBy(first.runId);
    expect(finished).toBeGreaterThan(0.4 * minimum());
    sim.resetRequests();
    const second = await syncOnce(db, sim);
    expect(second).toMatchObject({ status: 'succeeded', continues: { runId: first.runId, requestsBefore: first.requests } });
    // Every scope the first part finished, but the roots (always asked again: new scopes appear there).
    expect(second.scopes.carried).toBeGreaterThanOrEqual(finished - 4);
    expect(Object.values(sim.requests().byPath).every((n) => n === 1)).toBe(true);
    const total = first.requests + second.requests;
    console.info(`stopped at ${first.requests} of ${minimum()} requests, continued with ${second.requests}: ${(total / minimum()).toFixed(3)} x the minimum`);
    expect(total).toBeLessThanOrEqual(1.05 * minimum());
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    const { rows } = await db.pool.query('SELECT continues_run_id::int, requests_before, walk_done FROM pitwall.sync_runs WHERE run_id = $1', [second.runId]);
    expect(rows[0]).toEqual({ continues_run_id: first.runId, requests_before: first.requests, walk_done: true });

    // Every status view says so: `pitwall status` (text and JSON), the status page and its JSON.
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key };
    const report = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusReport;
    expect(report.runs.find((r) => r.run_id === second.runId)).toMatchObject({ continues_run_id: first.runId, requests_before: first.requests });
    const text = (await runCli(['status'], env)).stdout;
    expect(text).toMatch(new RegExp(`^\\s*${second.runId}\\s+full\\s+manual, continues run ${first.runId}\\s+succeeded`, 'm'));
    const page = await loadStatusPage(db.pool, { secrets: [] });
    expect(page.runs.find((r) => r.run_id === second.runId)).toMatchObject({ continues_run_id: first.runId });
    expect(renderStatusPage(page)).toContain(`manual, continues run ${first.runId}`);
  });

  it('is not continued once a run reached its end, nor by a run asked to start afresh, nor when older than PITWALL_CONTINUE_HOURS', async () => {
    const whole = await syncOnce(db, sim);
    expect(whole.continues).toBeUndefined();
    await stoppedAt(0.3);
    const fresh = await syncOnce(db, sim, { fresh: true });
    expect(fresh.continues).toBeUndefined();
    expect(fresh.scopes.carried).toBe(0);
    const old = await stoppedAt(0.3);
    await db.pool.query(`UPDATE pitwall.sync_runs SET started_at = now() - interval '3 hours' WHERE run_id = $1`, [old.runId]);
    expect((await syncOnce(db, sim, { env: { PITWALL_CONTINUE_HOURS: '2' } })).continues).toBeUndefined();
    const off = await stoppedAt(0.3);
    expect((await syncOnce(db, sim, { env: { PITWALL_CONTINUE_HOURS: '0' } })).continues).toBeUndefined();
    expect(off.status).toBe('interrupted');
  });

  it('continues a continuation: three parts, each asking only for what the ones before had not finished', async () => {
    const first = await stoppedAt(0.3);
    const second = await stoppedAt(0.6);
    expect(second.continues).toEqual({ runId: first.runId, requestsBefore: first.requests });
    const third = await syncOnce(db, sim);
    expect(third).toMatchObject({ status: 'succeeded', continues: { runId: second.runId, requestsBefore: first.requests + second.requests } });
    expect(first.requests + second.requests + third.requests).toBeLessThanOrEqual(1.05 * minimum());
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('brings back nothing another job marked deleted in between: a parent that job loaded again is asked for again', async () => {
    expect((await syncOnce(db, sim, { fresh: true })).status).toBe('succeeded');
    const first = await stoppedAt(0.5);
    // An event of this season whose results the first part had not reached: from the schedule as
    // the first part saw it, the continued run would ask for them. The season job asks for every
    // event list of this season again, whatever the events' dates.
    const { rows } = await db.pool.query<{ event_id: number }>(
      `SELECT r.event_id FROM mrp.results r
         JOIN mrp.schedule_events se ON se.event_id = r.event_id
         JOIN mrp.schedules s ON s.schedule_id = se.schedule_id
         JOIN pitwall.sync_state st ON st.endpoint = 'results' AND st.params = 'EventId=' || r.event_id
        WHERE st.last_run_id <> $1 AND r._deleted_at IS NULL AND s.schedule_year = $2
        ORDER BY r.event_id LIMIT 1`,
      [first.runId, Number(sim.world.today().slice(0, 4))],
    );
    expect(rows).toHaveLength(1);
    const eventId = rows[0]!.event_id;
    const live = async () =>
      (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.results WHERE event_id = $1 AND _deleted_at IS NULL', [eventId])).rows[0]!.n;
    sim.world.cancelEvent(eventId);
    expect((await syncOnce(db, sim, { job: 'season' })).status).toBe('succeeded');
    expect(await live()).toBe(0);
    // The continued full must not load the event's detail again from the schedule the first part saw.
    const second = await syncOnce(db, sim);
    expect(second).toMatchObject({ status: 'succeeded', continues: { runId: first.runId } });
    expect(await live()).toBe(0);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
