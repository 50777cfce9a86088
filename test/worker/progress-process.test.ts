import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { StatusReport } from '../../src/commands/status-report.js';
import type { StatusPageData } from '../../src/observability/status-page/data.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli, startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/ports.js';

/**
 * A real worker on an empty warehouse catches up with a full run, slowed by the simulator's
 * latency; while it runs, /status.json and a separate `pitwall status` process see its requests
 * and scopes done grow from its heartbeat, then a SIGTERM stops it.
 */
describe('a running run seen from outside the worker', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 21 })]);
    // About 110 requests one at a time: the run lasts far longer than a few heartbeats.
    sim.setFaults({ latencyMs: 400 });
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('shows requests and scopes done on /status.json and in pitwall status before the run ends', async () => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
    const worker = startCli(['worker'], {
      ...env,
      PITWALL_CONCURRENCY: '1',
      PITWALL_HTTP_PORT: String(port),
      PITWALL_SHUTDOWN_TIMEOUT_MS: '2000',
      PITWALL_CRON_LIVE: '0 0 1 1 *',
      PITWALL_CRON_SEASON: '0 0 1 1 *',
      PITWALL_CRON_FULL: '0 0 1 1 *',
    });
    try {
      const page = await poll(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/status.json`).catch(() => null);
        const data = res?.ok ? ((await res.json()) as StatusPageData) : null;
        const run = data?.running[0];
        return run && run.requests > 0 && run.scopes_done > 0 ? data : null;
      });
      expect(page.running[0]).toMatchObject({ job: 'full', trigger: 'catch-up' });
      expect(page.running[0]!.scopes_total).toBeGreaterThanOrEqual(page.running[0]!.scopes_done);
      expect(page.next_runs.full).toMatch(/-01-01T00:00:00\.000Z$/);

      const status = await runCli(['status', '--json'], env);
      expect(status.code).toBe(0);
      const report = JSON.parse(status.stdout) as StatusReport;
      expect(report.running).toEqual([expect.objectContaining({ job: 'full', trigger: 'catch-up' })]);
      expect(report.running[0]!.requests).toBeGreaterThan(0);
      expect(report.running[0]!.scopes_done).toBeGreaterThan(0);
    } finally {
      worker.child.kill('SIGTERM');
    }
    const exited = await worker.exited;
    expect(exited.code).toBe(0);
    const { rows } = await db.pool.query(`SELECT job, trigger, status FROM pitwall.sync_runs ORDER BY run_id`);
    expect(rows).toEqual([{ job: 'full', trigger: 'catch-up', status: 'interrupted' }]);
  });
});

/** Polls until `read` returns something; real time, since a real process is being watched. */
async function poll<T>(read: () => Promise<T | null | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (performance.now() > deadline) throw new Error('timed out waiting for the running run to report progress');
    await new Promise((r) => setTimeout(r, 250));
  }
}
