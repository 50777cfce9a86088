import { hostname } from 'node:os';

import { beforeAll, describe, expect, it } from 'vitest';

import { loadStatus, statusText, type StatusReport } from '../../src/commands/status-report.js';
import { createSilentLogger } from '../../src/log.js';
import { startObservabilityServer, type ObservabilityServer } from '../../src/observability/http-server.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { loadStatusPage, type StatusPageData } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { NO_SCHEDULES, waitForCount } from '../worker/process.js';

/** Long enough that a heartbeat written before the test's reads is never stale during them, however busy the machine. */
const HELD_ALIVE_MS = 3_600_000;

describe('every view of a run whose worker was killed (kill -9) mid-run', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 23 });
  const server = useResource<ObservabilityServer>(
    'the observability server',
    () =>
      startObservabilityServer({
        port: 0,
        host: '127.0.0.1',
        health: async () => ({ ok: true }),
        registry: createMetrics(db.pool).registry,
        logger: createSilentLogger(),
        status: () => loadStatusPage(db.pool, { secrets: [sim.key] }),
      }),
    (s) => s.close(),
  );
  const env = () => ({ DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, ...NO_SCHEDULES, PITWALL_MAX_RPS: '2' });
  let runId = 0;

  beforeAll(async () => {
    // Its start-up catch-up runs a full: at 2 requests a second a tiny one (~110 requests) lasts
    // ~55 s, so it is still going at its first heartbeat (5 s), when it is killed.
    const worker = startCli(['worker'], env(), 120_000);
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running' AND heartbeat_at IS NOT NULL`, 1);
    worker.child.kill('SIGKILL');
    await worker.exited;
    // Its sessions end when the server notices the closed sockets: then its locks are gone.
    await waitForCount(db.pool, `SELECT (count(*) = 0)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'pitwall worker ${worker.child.pid}@%'`, 1);
    runId = (await db.pool.query<{ id: number }>(`SELECT run_id::int AS id FROM pitwall.sync_runs WHERE job = 'full' AND status = 'running'`)).rows[0]!.id;
  });

  it('killed on another machine a moment ago: running in every section, said to hold no lock, with when it is taken for dead', async () => {
    // Another machine's pid cannot be looked up here: only the heartbeat's age can call it dead.
    await db.pool.query(`UPDATE pitwall.sync_runs SET host = 'another-machine' WHERE run_id = $1`, [runId]);
    const [report] = (await loadStatus(db.pool, undefined, 10, HELD_ALIVE_MS)) as [StatusReport];
    const page = await loadStatusPage(db.pool, { secrets: [], staleAfterMs: HELD_ALIVE_MS });
    expect({
      jobs: report.jobs.find((j) => j.job === 'full')?.status,
      runs: report.runs.find((r) => r.run_id === runId)?.status,
      running: report.running.map((r) => [r.run_id, r.lock_held]),
      owner: report.owner,
    }).toEqual({ jobs: 'running', runs: 'running', running: [[runId, false]], owner: null });
    expect({
      jobs: page.jobs.find((j) => j.job === 'full')?.last_status,
      runs: page.runs.find((r) => r.run_id === runId)?.status,
      running: page.running.map((r) => [r.run_id, r.lock_held]),
      owner: page.sources[0]?.owner,
    }).toEqual({ jobs: 'running', runs: 'running', running: [[runId, false]], owner: null });
    for (const text of [statusText(report), renderStatusPage(page)]) {
      expect(text).toContain('its process holds no lock (killed or cut off): abandoned at');
      expect(text).not.toMatch(/abandoned<\/span>|\babandoned {2}|\d (ms|s|min|h) left/);
    }
    await db.pool.query(`UPDATE pitwall.sync_runs SET host = $2 WHERE run_id = $1`, [runId, hostname()]);
  });

  it('killed on this machine: abandoned in every view (the CLI, its JSON, the page, status.json, the metrics), with its error whole', async () => {
    const json = JSON.parse((await runCli(['status', '--json'], env())).stdout) as StatusReport;
    const text = (await runCli(['status'], env())).stdout;
    const page = JSON.parse(await (await fetch(`${server.url}/status.json`)).text()) as StatusPageData;
    const html = await (await fetch(`${server.url}/`)).text();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect({
      jobs: json.jobs.find((j) => j.job === 'full')?.status,
      runs: json.runs.find((r) => r.run_id === runId)?.status,
      running: json.running,
      owner: json.owner,
    }).toEqual({ jobs: 'abandoned', runs: 'abandoned', running: [], owner: null });
    expect({
      jobs: page.jobs.find((j) => j.job === 'full')?.last_status,
      runs: page.runs.find((r) => r.run_id === runId)?.status,
      running: page.running,
      owner: page.sources[0]?.owner,
    }).toEqual({ jobs: 'abandoned', runs: 'abandoned', running: [], owner: null });
    expect(json.jobs.find((j) => j.job === 'full')?.error).toMatch(/stopped reporting progress; marked abandoned at its last heartbeat$/);
    // Wrapped in its column, never cut: every word of the error is printed.
    expect(text.replace(/\s+/g, ' ')).toContain('stopped reporting progress; marked abandoned at its last heartbeat');
    expect(text).toContain('(no run is going)');
    // Its schedules are recorded, but no worker runs them now: no time is made up.
    expect({ next: json.next_runs, of: json.next_runs_of }).toEqual({ next: {}, of: null });
    expect(text).toContain('Next runs: none (no worker owns this source now, so nothing is scheduled)');
    expect(html).toContain('No run is going.');
    expect(html).toContain('marked abandoned at its last heartbeat');
    expect(metrics).toMatch(/^# TYPE pitwall_run_scopes_done gauge$/m);
    expect(metrics).not.toMatch(/^pitwall_run_scopes_done\{/m);
  });
});
