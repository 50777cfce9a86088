import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { StatusReport } from '../../src/commands/status-report.js';
import { STALE_AFTER_MS } from '../../src/coordination/lease.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runSync } from '../../src/sync/run.js';
import { markDeadRuns } from '../../src/sync/sql/dead-runs.js';
import { runCli, startCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/sync.js';
import { fetchTruth } from '../helpers/warehouse.js';
import { waitForCount } from '../worker/process.js';

/**
 * A run whose process died is recognised by whoever looks next, from its stale heartbeat (the one
 * rule, src/sync/sql/dead-runs.ts); a run whose process beats is never touched, and a run whose row
 * another process closed writes nothing more.
 */
describe('dead runs', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 41 })]);
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_LOG_LEVEL: 'warn' };
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  const runRow = async (runId: number) =>
    (
      await db.pool.query(
        `SELECT status, heartbeat_at::text AS beat, finished_at::text AS finished, requests, rows_inserted, scopes_done, error
           FROM pitwall.sync_runs WHERE run_id = $1`,
        [runId],
      )
    ).rows[0];

  it('shows a `pitwall sync` killed with SIGKILL abandoned at its last heartbeat, counts kept, in `pitwall status`', async () => {
    sim.setFaults({ latencyMs: 300 });
    const cli = startCli(['sync', '--job', 'full'], env);
    // A heartbeat that carried figures: the run has written its progress at least once.
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running' AND requests > 0 AND rows_inserted > 0`, 1);
    cli.child.kill('SIGKILL');
    await cli.exited;
    const runId = Number((await db.pool.query(`SELECT max(run_id) AS id FROM pitwall.sync_runs`)).rows[0].id);
    const beforeCheck = await runRow(runId);
    expect(beforeCheck.status).toBe('running');
    // Real time: the dead process's last heartbeat has to age past the threshold.
    await waitForCount(db.pool, `SELECT (now() - heartbeat_at > make_interval(secs => ${STALE_AFTER_MS / 1000 + 1}))::int AS n FROM pitwall.sync_runs WHERE run_id = ${runId}`, 1);

    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    const shown = (JSON.parse(status.stdout) as StatusReport).runs.find((r) => r.run_id === runId);
    expect(shown).toMatchObject({ status: 'abandoned', requests: beforeCheck.requests });
    expect(shown?.error).toMatch(/pid \d+ on .+ stopped reporting progress/);
    const after = await runRow(runId);
    expect(after).toMatchObject({ status: 'abandoned', finished: beforeCheck.beat, requests: beforeCheck.requests, rows_inserted: beforeCheck.rows_inserted });
    expect(after.scopes_done).toBeGreaterThan(0);
  });

  it('leaves a run alone while its process beats, however often anyone looks, and the check makes no run skip', async () => {
    sim.setFaults({ latencyMs: 100 });
    // Beats every 200 ms; a look that calls a run dead after 2 s of silence never finds this one.
    const run = runSync({ pool: db.pool, config: testConfig(db, sim), logger: createSilentLogger(), heartbeatMs: 200 }, { job: 'full' });
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE status = 'ok' AND last_run_id = (SELECT max(run_id) FROM pitwall.sync_runs)`, 5);
    for (let i = 0; i < 5; i++) expect(await markDeadRuns(db.pool, 2_000)).toEqual([]);
    const status = await runCli(['status', '--json'], env);
    expect(status.code).toBe(0);
    const summary = await run;
    expect(summary.status).toBe('succeeded');
    expect((await runRow(summary.runId)).status).toBe('succeeded');
  });

  it('refuses every write of a run once another process has closed its row, and leaves the row as that process wrote it', async () => {
    sim.setFaults({ latencyMs: 100 });
    // Something to write in many scopes, so that writes are under way when the row is closed.
    const drivers = (await fetchTruth(sim.url)).drivers as Array<{ driver_id: number }>;
    for (const d of drivers.slice(0, 20)) sim.world.renameDriver(d.driver_id, { lastName: `Fenced${d.driver_id}` });
    const run = runSync({ pool: db.pool, config: testConfig(db, sim), logger: createSilentLogger() }, { job: 'full' });
    const loaded = `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = (SELECT max(run_id) FROM pitwall.sync_runs WHERE job = 'full' AND trigger = 'manual')`;
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = (SELECT run_id FROM pitwall.sync_runs WHERE status = 'running')`, 3);
    // What a successor's job lock does to a run the rule calls dead (a paused process, say).
    const { rows: [closed] = [] } = await db.pool.query<{ run_id: string }>(`UPDATE pitwall.sync_runs SET status = 'abandoned', finished_at = now() WHERE status = 'running' RETURNING run_id`);
    const writtenThen = (await db.pool.query<{ n: number }>(loaded)).rows[0]!.n;
    const summary = await run;
    expect(summary.runId).toBe(Number(closed!.run_id));
    expect(summary.status).toMatch(/^(failed|abandoned)$/);
    expect(summary.error).toMatch(/closed as abandoned by another process/);
    // A transaction already past its fence may commit; none begun after the close does.
    expect((await db.pool.query<{ n: number }>(loaded)).rows[0]!.n).toBeLessThanOrEqual(writtenThen + 2);
    expect(await runRow(summary.runId)).toMatchObject({ status: 'abandoned' });
  });

  it('records `interrupted` for a `pitwall sync` stopped with SIGTERM', async () => {
    sim.setFaults({ latencyMs: 200 });
    const cli = startCli(['sync', '--job', 'full'], env);
    await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`, 1);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(130);
    const last = (await db.pool.query(`SELECT status FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT 1`)).rows[0];
    expect(last.status).toBe('interrupted');
  });
});
