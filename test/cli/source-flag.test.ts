import { beforeAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import type { StatusReport } from '../../src/commands/status-report.js';
import { tableMeta } from '../../src/db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import { runSync } from '../../src/sync/run.js';
import type { EndpointDrift } from '../../src/sync/shape/report.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { testConfig } from '../helpers/sync.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

const SITES = ['track-a', 'track-b', 'series-c'] as const;
const UNKNOWN = '--source: no source named nope; known: track-a, track-b, series-c';

describe('status, drift, rebuild and probe per source (--source)', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 8, sites: 3 });

  /** Three sources in one file, their keys in three variables; `keys: false` leaves the variables unset. */
  const sourcesEnv = useSourcesFile(SITES);
  const env = ({ keys = true } = {}) => sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, keys ? sim.sites.map((s) => s.key) : []);
  const keyOf = (name: (typeof SITES)[number]) => sim.sites[SITES.indexOf(name)]?.key as string;
  const noKeyIn = (r: CliResult) => {
    for (const s of sim.sites) expect(r.stdout + r.stderr).not.toContain(s.key);
  };

  beforeAll(async () => {
    // Each source's full run, in-process to keep the file quick; then a live run of track-b
    // refused, so the sources' states differ.
    const sync = (name: (typeof SITES)[number], job: 'full' | 'live') =>
      runSync({ pool: db.pool, config: testConfig(db, sim, { MRP_API_KEY: keyOf(name) }), logger: createSilentLogger(), source: name }, { job });
    for (const s of await Promise.all(SITES.map((name) => sync(name, 'full')))) expect(s.status).toBe('succeeded');
    sim.revokeKey(keyOf('track-b'));
    try {
      expect((await sync('track-b', 'live')).status).toBe('failed');
    } finally {
      sim.revokeKey(keyOf('track-b'), true);
    }
  });

  it('status reports each source under its name, and one source as it always has', async () => {
    const all = await runCli(['status', '--json'], env({ keys: false }));
    expect(all.code).toBe(EXIT.ok);
    const reports = (JSON.parse(all.stdout) as { sources: Record<string, StatusReport> }).sources;
    expect(Object.keys(reports)).toEqual(SITES);
    for (const name of SITES) {
      expect(reports[name]?.jobs.find((j) => j.job === 'full')?.status).toBe('succeeded');
      const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE source = $1`, [name]);
      expect(reports[name]?.endpoints.reduce((n, e) => n + e.scopes, 0)).toBe(rows[0]?.n);
    }
    expect(reports['track-a']?.jobs.find((j) => j.job === 'live')?.status).toBeNull();

    const one = await runCli(['status', '--source', 'track-b', '--json'], env({ keys: false }));
    const report = JSON.parse(one.stdout) as StatusReport;
    expect(report.jobs.find((j) => j.job === 'live')?.status).toBe('failed');
    const { rows: runs } = await db.pool.query<{ run_id: number }>(`SELECT run_id::int FROM pitwall.sync_runs WHERE source = 'track-b' ORDER BY run_id DESC`);
    expect(report.runs.map((r) => r.run_id)).toEqual(runs.map((r) => r.run_id));

    const text = await runCli(['status'], env({ keys: false }));
    expect(text.stdout.match(/^== source .*$/gm)).toEqual(SITES.map((name) => `== source ${name}`));
    expect((await runCli(['status', '--source', 'track-a'], env({ keys: false }))).stdout).toMatch(/^Jobs\n/);
    for (const r of [all, one, text]) noKeyIn(r);
  });

  it('drift reads each source\'s own shape tracking; --suggest wants one source', async () => {
    await db.pool.query(
      `INSERT INTO pitwall.shape_paths (source, endpoint, path, json_types, seen, modelled) VALUES ('track-b', 'results', 'Classes[].NewField', '{string}', 2, false)`,
    );
    const unmodelled = async (name: string) => {
      const r = await runCli(['drift', '--source', name, '--json'], env({ keys: false }));
      expect(r.code).toBe(EXIT.ok);
      return (JSON.parse(r.stdout) as { endpoints: EndpointDrift[] }).endpoints.find((e) => e.endpoint === 'results')?.unmodelled.map((u) => u.path);
    };
    expect(await unmodelled('track-b')).toEqual(['Classes[].NewField']);
    expect(await unmodelled('track-a')).toEqual([]);

    const all = await runCli(['drift'], env({ keys: false }));
    expect(all.stdout.match(/^== source .*$/gm)).toEqual(SITES.map((name) => `== source ${name}`));
    expect(all.stdout.match(/Classes\[\]\.NewField/g)).toHaveLength(1);
    expect(all.stdout.indexOf('NewField')).toBeGreaterThan(all.stdout.indexOf('== source track-b'));
    expect(all.stdout.indexOf('NewField')).toBeLessThan(all.stdout.indexOf('== source series-c'));

    const several = await runCli(['drift', '--suggest'], env({ keys: false }));
    expect(several.code).toBe(EXIT.usage);
    expect(several.stderr).toContain('--suggest writes one PITWALL_SHAPES file: name one source with --source (track-a, track-b, series-c)');
    expect((await runCli(['drift', '--suggest', '--source', 'track-b'], env({ keys: false }))).code).toBe(EXIT.ok);
    const unknown = await runCli(['drift', '--source', 'nope'], env({ keys: false }));
    expect([unknown.code, unknown.stderr]).toEqual([EXIT.usage, expect.stringContaining(UNKNOWN)]);
  });

  it('rebuild re-derives only the named source\'s rows, from its own kept bodies, without its key', async () => {
    const tables = Object.keys(warehouseTables) as WarehouseTableName[];
    // One transaction: the foreign keys are checked at its commit, when parents and children are gone alike.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DELETE FROM analytics.point_standings_history WHERE source IN ('track-a', 'track-b')`);
      for (const t of tables) await client.query(`DELETE FROM ${tableMeta(warehouseTables[t]).qualifiedName} WHERE source IN ('track-a', 'track-b')`);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const r = await runCli(['rebuild', '--source', 'track-a', '--json'], env({ keys: false }));
    expect(r.code).toBe(EXIT.ok);
    expect(JSON.parse(r.stdout)).toMatchObject({ job: 'rebuild', status: 'succeeded', requests: 0 });
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, keyOf('track-a')), 'track-a')).toEqual({});
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, keyOf('series-c')), 'series-c')).toEqual({});
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mrp.results WHERE source = 'track-b'`);
    expect(rows[0]?.n).toBe(0);
    const rebuilds = await db.pool.query<{ source: string }>(`SELECT source FROM pitwall.sync_runs WHERE job = 'rebuild'`);
    expect(rebuilds.rows).toEqual([{ source: 'track-a' }]);

    const unknown = await runCli(['rebuild', '--source', 'nope'], env({ keys: false }));
    expect([unknown.code, unknown.stderr]).toEqual([EXIT.usage, expect.stringContaining(UNKNOWN)]);
    // Put track-b back for the tests after this one, and say so per source.
    const back = await runCli(['rebuild', '--source', 'track-b', '--source', 'series-c'], env({ keys: false }));
    expect(back.stdout).toMatch(/^== source track-b\nrun \d+ \(rebuild\): succeeded/);
    expect(back.stdout).toMatch(/\n\n== source series-c\nrun \d+ \(rebuild\): succeeded/);
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, keyOf('track-b')), 'track-b')).toEqual({});
  });

  it('probe samples with the named source\'s key only, and names the source whose key is refused', async () => {
    // The other keys refused: a probe of series-c that used them, or probed their sources, would fail.
    sim.revokeKey(keyOf('track-a'));
    sim.revokeKey(keyOf('track-b'));
    try {
      const one = await runCli(['probe', '--source', 'series-c', '--json'], env());
      expect([one.code, one.stderr]).toEqual([EXIT.ok, '']);
      expect(Object.keys(JSON.parse(one.stdout) as object)).toEqual(['samples', 'endpoints']);
      sim.revokeKey(keyOf('track-a'), true);
      const all = await runCli(['probe', '--json'], env());
      expect(all.code).toBe(EXIT.keyRefused);
      expect(all.stderr).toMatch(/^pitwall: source track-b: the upstream refused the API key/);
      const probed = (JSON.parse(all.stdout) as { sources: Record<string, { samples?: unknown[]; keyRefused?: boolean }> }).sources;
      expect(Object.keys(probed)).toEqual(SITES);
      expect(probed['track-a']?.samples?.length).toBeGreaterThan(0);
      expect(probed['track-b']).toMatchObject({ keyRefused: true });
      expect(probed['series-c']?.samples?.length).toBeGreaterThan(0);
      for (const r of [one, all]) noKeyIn(r);
    } finally {
      sim.revokeKey(keyOf('track-a'), true);
      sim.revokeKey(keyOf('track-b'), true);
    }
    const unknown = await runCli(['probe', '--source', 'nope'], env());
    expect([unknown.code, unknown.stderr]).toEqual([EXIT.usage, expect.stringContaining(UNKNOWN)]);
  });
});
