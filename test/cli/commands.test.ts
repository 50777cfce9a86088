import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';

describe('the pitwall command', () => {
  let env: Record<string, string>;
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 21 });
  beforeAll(async () => {
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
  });

  it('prints help with every command and configuration variable', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    for (const word of ['migrate', 'sync', 'status', 'simulate', 'MRP_API_KEY', 'PITWALL_MAX_RPS', 'Exit codes']) {
      expect(r.stdout).toContain(word);
    }
  });

  it('prints its version, the package\'s, exit 0', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V', 'version']) expect(await runCli([flag], {})).toMatchObject({ code: 0, stdout: `pitwall ${version}\n` });
  });

  it('rejects a bad setting by name, exit 2, without echoing the key', async () => {
    const r = await runCli(['sync'], { ...env, PITWALL_CONCURRENCY: 'lots' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PITWALL_CONCURRENCY');
    expect(r.stderr).not.toContain(sim.key);
  });

  it('migrates, then syncs with a JSON summary on stdout, exit 0', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const r = await runCli(['sync', '--json'], env);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as Record<string, unknown> & { tables: Record<string, Record<string, number>> };
    expect(summary).toMatchObject({ job: 'full', status: 'succeeded' });
    expect(typeof summary.runId).toBe('number');
    expect(summary.requests).toBeGreaterThan(0);
    expect(summary.tables.results?.inserted).toBeGreaterThan(0);
    for (const counts of Object.values(summary.tables)) {
      expect(Object.keys(counts).sort()).toEqual(['deleted', 'duplicates', 'fieldErrors', 'inserted', 'rejected', 'seenAgain', 'unchanged', 'updated']);
    }
    expect(r.stdout + r.stderr).not.toContain(sim.key);
  });

  it('prints a summary for a person, and status shows the run', async () => {
    // Against an unchanged upstream every response is identical to the last: nothing is loaded.
    const sync = await runCli(['sync'], env);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/succeeded/);
    expect(sync.stdout).toMatch(/scopes loaded 0, unchanged [1-9]\d*/);
    const status = await runCli(['status', '--json'], env);
    const report = JSON.parse(status.stdout) as { runs: Array<{ status: string }>; endpoints: Array<{ endpoint: string }> };
    expect(report.runs.slice(0, 2).map((x) => x.status)).toEqual(['succeeded', 'succeeded']);
    expect(report.endpoints.map((e) => e.endpoint)).toContain('point_standings');
  });

  it('exits 4 when the upstream refuses the key, and records why', async () => {
    const r = await runCli(['sync', '--json'], { ...env, MRP_API_KEY: 'not-the-key' });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout).status).toBe('failed');
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE status = 'invalid'`);
    expect(rows[0].n).toBeGreaterThan(0);
  });
});
