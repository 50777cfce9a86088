import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { KEY_REFUSED_MESSAGE } from '../../src/sync/key-refusal.js';
import { runCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

const SITES = ['track-a', 'track-b', 'series-c'];

describe('several sources into one warehouse (PITWALL_SOURCES)', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5, sites: 3 });
  const dir = { path: mkdtempSync(join(tmpdir(), 'pitwall-sources-')) };
  afterAll(() => rmSync(dir.path, { recursive: true, force: true }));

  /** The environment of a user with three keys in three variables and one sources file. */
  const sourcesEnv = useSourcesFile(SITES);
  const env = () => sourcesEnv({ simUrl: sim.url, dbUrl: db.url }, sim.sites.map((s) => s.key));

  it('loads each source to equal its own site, value by value, with shared entities once per source', async () => {
    const r = await runCli(['sync', '--json'], env());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    const report = JSON.parse(r.stdout) as { sources: Record<string, { status: string }> };
    expect(Object.keys(report.sources)).toEqual(SITES);
    for (const [i, name] of SITES.entries()) {
      expect(report.sources[name]?.status).toBe('succeeded');
      expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.sites[i]?.key), name)).toEqual({});
    }
    // The sites race the same drivers: a driver seen by two sources is a row of each.
    const { rows } = await db.pool.query<{ shared: number }>(
      `SELECT count(*)::int AS shared FROM (SELECT driver_id FROM mrp.drivers GROUP BY driver_id HAVING count(DISTINCT source) > 1) d`,
    );
    expect(rows[0]?.shared).toBeGreaterThan(0);
    const runs = await db.pool.query<{ source: string; status: string }>(`SELECT source, status FROM pitwall.sync_runs ORDER BY source`);
    expect(runs.rows).toEqual([...SITES].sort().map((source) => ({ source, status: 'succeeded' })));
    // No key is stored anywhere: not in the runs, the states, nor the kept bodies' scopes.
    const stored = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pitwall.sync_state WHERE params LIKE '%sim-site%' OR endpoint LIKE '%sim-site%'`,
    );
    expect(stored.rows[0]?.n).toBe(0);
  });

  it('syncs only the sources named by --source, and each source\'s deletions stay its own', async () => {
    // Cancel an event of site 1 only: a sync of track-a marks it deleted; track-b's rows are untouched.
    const event = (await fetchTruth(sim.url, sim.sites[0]?.key)).events[0] as { event_id: number };
    sim.sites[0]?.world.cancelEvent(event.event_id);
    const before = await db.pool.query(`SELECT source, count(*)::int AS n FROM mrp.results WHERE _deleted_at IS NULL GROUP BY source ORDER BY source`);
    const r = await runCli(['sync', '--source', 'track-a'], env());
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^run \d+ \(full\): succeeded/);
    const runs = await db.pool.query<{ source: string; n: number }>(`SELECT source, count(*)::int AS n FROM pitwall.sync_runs GROUP BY source ORDER BY source`);
    expect(runs.rows).toEqual([
      { source: 'series-c', n: 1 },
      { source: 'track-a', n: 2 },
      { source: 'track-b', n: 1 },
    ]);
    const after = await db.pool.query(`SELECT source, count(*)::int AS n FROM mrp.results WHERE _deleted_at IS NULL GROUP BY source ORDER BY source`);
    const count = (rows: Array<{ source: string; n: number }>, source: string) => rows.find((x) => x.source === source)?.n;
    expect(count(after.rows, 'track-b')).toBe(count(before.rows, 'track-b'));
    expect(count(after.rows, 'series-c')).toBe(count(before.rows, 'series-c'));
    expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.sites[0]?.key), 'track-a')).toEqual({});
    const unknown = await runCli(['sync', '--source', 'nope'], env());
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stderr).toContain('--source: no source named nope; known: track-a, track-b, series-c');
  });

  it('fails one source whose key is revoked with the refused-key line; the others are unaffected', async () => {
    const revoked = sim.sites[1]?.key as string;
    sim.revokeKey(revoked);
    try {
      const r = await runCli(['sync'], env());
      expect(r.code).toBe(EXIT.keyRefused);
      expect(r.stderr).toContain(KEY_REFUSED_MESSAGE);
      expect(r.stderr).not.toContain(revoked);
      expect(r.stdout).not.toContain(revoked);
      expect(r.stdout).toMatch(/== source track-a\nrun \d+ \(full\): succeeded/);
      expect(r.stdout).toMatch(/== source track-b\nrun \d+ \(full\): failed/);
      expect(r.stdout).toMatch(/== source series-c\nrun \d+ \(full\): succeeded/);
      // What track-b loaded before stays: a refused key proves nothing about the data.
      expect(await diffAgainstTruth(db.pool, await fetchTruth(sim.url, sim.sites[2]?.key), 'series-c')).toEqual({});
    } finally {
      sim.revokeKey(revoked, true);
    }
  });

  it('refuses a sources file with one line naming the bad entry, and never shows a key', async () => {
    const file = join(dir.path, 'bad.json');
    writeFileSync(file, JSON.stringify({ sources: [{ name: 'a', keyEnv: 'KEY_1' }, { name: 'b', keyEnv: 'MISSING_KEY' }] }));
    const r = await runCli(['sync'], { ...env(), PITWALL_SOURCES: file });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`PITWALL_SOURCES: ${file}: sources[1] (b).keyEnv: MISSING_KEY is not set`);
    writeFileSync(file, JSON.stringify({ sources: [{ name: 'a', keyEnv: 'KEY_1', keyFile: '/x' }] }));
    const both = await runCli(['sync'], { ...env(), PITWALL_SOURCES: file });
    expect(both.code).toBe(EXIT.usage);
    expect(both.stderr).toContain('sources[0]: expected exactly one of keyEnv and keyFile');
    writeFileSync(file, JSON.stringify({ sources: [{ name: 'a', keyEnv: 'KEY_1' }, { name: 'a', keyEnv: 'KEY_2' }] }));
    const twice = await runCli(['sync'], { ...env(), PITWALL_SOURCES: file });
    expect(twice.stderr).toContain('sources[1].name: a is named twice');
    for (const out of [r, both, twice]) for (const s of sim.sites) expect(out.stderr + out.stdout).not.toContain(s.key);
  });
});
