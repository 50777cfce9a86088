import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadStatus, statusText } from '../../src/commands/status-report.js';
import { LOCK_NAMESPACE, jobLockId } from '../../src/coordination/lock-ids.js';
import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { createSilentLogger } from '../../src/log.js';
import type { StatusPageData } from '../../src/observability/status-page/data.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

/**
 * How a running run's progress is shown, from sync_runs rows as a heartbeat leaves them (written
 * here by the test): the status page, /status.json, /metrics and `pitwall status`.
 */
describe('a running run on the status page, /status.json, /metrics and pitwall status', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  let runId: number;
  let lockSession: pg.PoolClient | undefined;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 8 })]);
    // Started first: at start it marks a running row whose job lock is free as abandoned.
    const config = workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_CRON_LIVE: '0 4 1 1 *' });
    worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim) });
    await worker.start();
    const summary = { tables: { events: { inserted: 12, updated: 0, unchanged: 0, deleted: 0, rejected: 0, fieldErrors: 0 }, drivers: { inserted: 0, updated: 0, unchanged: 40, deleted: 0, rejected: 0, fieldErrors: 0 } } };
    const { rows } = await db.pool.query<{ run_id: number }>(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at, requests, retries, rows_inserted, rows_updated,
                                      scopes_done, scopes_total, summary)
       VALUES ('full', 'catch-up', 'running', now() - interval '60 seconds', now(), 51, 2, 3000, 849, 50, 200, $1::jsonb)
       RETURNING run_id::int`,
      [JSON.stringify(summary)],
    );
    runId = rows[0]!.run_id;
    // Its job lock, held as a live run's process holds it: a running run whose lock nobody holds is shown as stopped.
    lockSession = await db.pool.connect();
    await lockSession.query('SELECT pg_advisory_lock($1, $2)', [LOCK_NAMESPACE, jobLockId(DEFAULT_SOURCE, 'full')]);
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, finished_at) VALUES
         ('live', 'cron', 'interrupted', now() - interval '2 hours', now() - interval '2 hours'),
         ('season', 'cron', 'abandoned', now() - interval '3 hours', now() - interval '3 hours')`,
    );
  });
  afterAll(async () => {
    lockSession?.release(true);
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('gives requests, rows written, scopes done of known, an ETA and the tables it changed in /status.json', async () => {
    const data = (await (await fetch(`${worker.url}/status.json`)).json()) as StatusPageData;
    expect(data.running).toEqual([
      expect.objectContaining({ run_id: runId, job: 'full', trigger: 'catch-up', requests: 51, rows_written: 3849, scopes_done: 50, scopes_total: 200, eta: 'estimated', lock_held: true }),
    ]);
    // 150 scopes left at 50 a minute.
    expect(data.running[0]?.eta_seconds).toBeGreaterThanOrEqual(179);
    expect(data.running[0]?.tables_changed).toEqual(['events']);
    expect(data.tables.find((t) => t.table === 'events')?.changing_in_run).toBe(runId);
    expect(data.tables.find((t) => t.table === 'drivers')?.changing_in_run).toBeNull();
    expect(Object.keys(data.next_runs).sort()).toEqual(['full', 'live', 'season']);
    expect(data.next_runs.live).toMatch(/^\d{4}-01-01T04:00:00\.000Z$/);
  });

  it('renders it on the page, with each job\'s next run, and an interrupted run not as a failure', async () => {
    const html = await (await fetch(`${worker.url}/`)).text();
    const running = /<table id="running">.*?<\/table>/s.exec(html)?.[0] ?? '';
    expect(running).toContain('<td class="n">51</td><td class="n">3,849</td><td class="n">50 / 200</td><td>about 3.0 min left</td>');
    expect(html).toContain('(changing now: run ' + runId + ')');
    expect(/<table id="jobs">.*?<\/table>/s.exec(html)?.[0]).toMatch(/-01-01 04:00:00Z/);
    expect(html).toContain('<span class="status-interrupted">interrupted</span>');
    expect(html).not.toMatch(/<tr class="failed"><td class="n">\d+<\/td><td>live<\/td><td>cron<\/td><td><span class="status-interrupted">/);
    expect(html).toMatch(/<tr class="failed"><td class="n">\d+<\/td><td>season<\/td><td>cron<\/td><td><span class="status-abandoned">abandoned/);
    // How things stand now: the season's latest finished run was abandoned; the interrupted live is no failure.
    expect(/<div class="behind" id="headline">.*?<\/div>/s.exec(html)?.[0]).toMatch(/<li>season: its latest finished run \(\d+\) abandoned; last success never<\/li><\/ul>/);
  });

  it('exports its progress as gauges at scrape time', async () => {
    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toContain('pitwall_run_scopes_done{source="default",job="full"} 50');
    expect(metrics).toContain('pitwall_run_scopes_total{source="default",job="full"} 200');
    expect(metrics).toContain('pitwall_run_requests{source="default",job="full"} 51');
    expect(metrics).toContain('pitwall_run_rows_written{source="default",job="full"} 3849');
    await db.pool.query(`UPDATE pitwall.sync_runs SET scopes_done = 60 WHERE run_id = $1`, [runId]);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await (await fetch(`${worker.url}/metrics`)).text()).toContain('pitwall_run_scopes_done{source="default",job="full"} 60');
    await db.pool.query(`UPDATE pitwall.sync_runs SET scopes_done = 50 WHERE run_id = $1`, [runId]);
  });

  it('is in pitwall status too, with next runs from the schedules the worker owning the source recorded', async () => {
    const [report] = await loadStatus(db.pool, [{ name: 'default' }]);
    if (!report) throw new Error('no report of the default source');
    expect(report.running).toEqual([expect.objectContaining({ run_id: runId, requests: 51, rows_written: 3849, scopes_done: 50, scopes_total: 200 })]);
    const text = statusText(report);
    expect(text).toMatch(/^Next runs \(the schedules of worker \d+@\S+, which owns this source\)$/m);
    expect(text).toMatch(/^live\s+\d{4}-01-01T04:00:00\.000Z$/m);
    expect(text).toMatch(/catch-up\s.*\s51\s+3849\s+50 \/ 200\s+~3 min left/);
  });
});
