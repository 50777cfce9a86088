import { beforeAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import type { StatusReport } from '../../src/commands/status-report.js';
import { createSilentLogger } from '../../src/log.js';
import { loadStatusPage } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import { runSync } from '../../src/sync/run.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { useSourcesFile } from '../helpers/sources.js';
import { testConfig } from '../helpers/sync.js';

describe('a source removed from PITWALL_SOURCES, and pitwall retire-source', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 12, sites: 2 });
  // track-a's key is KEY_1 in both files.
  const bothFile = useSourcesFile(['track-a', 'track-b']);
  const oneFile = useSourcesFile(['track-a']);
  const keys = () => sim.sites.map((s) => s.key);
  const both = () => bothFile({ simUrl: sim.url, dbUrl: db.url }, keys());
  const one = () => oneFile({ simUrl: sim.url, dbUrl: db.url }, keys().slice(0, 1));
  const ok = (r: CliResult) => expect({ code: r.code, stderr: r.stderr }).toEqual({ code: EXIT.ok, stderr: '' });
  /** A refusal: the exit code, and one line on stderr. */
  const refused = (r: CliResult, code: number) => {
    expect(r.code).toBe(code);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    return r.stderr.trimEnd();
  };

  /** Every table of mrp, analytics and pitwall with a `source` column, from the catalog. */
  const sourcedTables = async () =>
    (
      await db.pool.query<{ t: string }>(
        `SELECT format('%I.%I', c.table_schema, c.table_name) AS t FROM information_schema.columns AS c
           JOIN information_schema.tables AS x ON x.table_schema = c.table_schema AND x.table_name = c.table_name AND x.table_type = 'BASE TABLE'
          WHERE c.table_schema IN ('mrp', 'analytics', 'pitwall') AND c.column_name = 'source' ORDER BY 1`,
      )
    ).rows.map((r) => r.t);
  const mrpTables = async () => (await sourcedTables()).filter((t) => t.startsWith('mrp.'));
  /** A source's mrp rows: all of them, and those live. */
  const mrpRows = async (source: string) => {
    let all = 0;
    let live = 0;
    for (const t of await mrpTables()) {
      const { rows } = await db.pool.query<{ all: number; live: number }>(
        `SELECT count(*)::int AS all, count(*) FILTER (WHERE _deleted_at IS NULL)::int AS live FROM ${t} WHERE source = $1`,
        [source],
      );
      all += rows[0]!.all;
      live += rows[0]!.live;
    }
    return { all, live };
  };
  /** A digest of every row of a source in mrp, bookkeeping included: equal only if nothing of it changed. */
  const digest = async (source: string) => {
    const parts: string[] = [];
    for (const t of await mrpTables()) {
      const { rows } = await db.pool.query<{ d: string | null }>(`SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS d FROM ${t} AS x WHERE source = $1`, [source]);
      parts.push(`${t}:${rows[0]?.d ?? 'empty'}`);
    }
    return parts;
  };
  /** Rows of the analytics views that show `source` among their sources. */
  const viewRows = async (source: string) => {
    const { rows: views } = await db.pool.query<{ v: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS v FROM information_schema.columns WHERE table_schema = 'analytics' AND column_name = 'sources' ORDER BY 1`,
    );
    expect(views.length).toBeGreaterThan(0);
    let n = 0;
    for (const { v } of views) n += (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${v} WHERE $1 = ANY (sources)`, [source])).rows[0]!.n;
    return n;
  };
  const unconfiguredSince = async (source: string) =>
    (await db.pool.query<{ at: Date | null }>(`SELECT unconfigured_since AS at FROM pitwall.sources WHERE source = $1`, [source])).rows[0]?.at?.toISOString();

  beforeAll(async () => {
    ok(await runCli(['sync'], both()));
  });

  it('stays, live, after a sync without it, and status and the status page say since when it is no longer configured', async () => {
    const before = await mrpRows('track-b');
    expect(before.live).toBeGreaterThan(0);
    ok(await runCli(['sync', '--job', 'live'], one()));
    const since = (await unconfiguredSince('track-b')) ?? expect.fail('track-b is not recorded as no longer configured');
    expect(await unconfiguredSince('track-a')).toBeUndefined();

    const text = await runCli(['status', '--source', 'track-b'], one());
    ok(text);
    expect(text.stdout.split('\n')[0]).toBe(
      `Source track-b is no longer configured since ${since}; its rows are kept until pitwall retire-source track-b marks them deleted (--delete removes them).`,
    );
    const json = JSON.parse((await runCli(['status', '--json'], one())).stdout) as { sources: Record<string, StatusReport> };
    expect(json.sources['track-b']?.no_longer_configured).toMatchObject({ since, retired_at: null });
    expect(json.sources['track-a']?.no_longer_configured).toBeNull();

    const page = await loadStatusPage(db.pool, { secrets: keys(), sources: () => [{ name: 'track-a' }] });
    expect(page.sources.map((s) => [s.source, s.no_longer_configured?.since ?? null])).toEqual([['track-a', null], ['track-b', since]]);
    expect(renderStatusPage(page)).toContain(`<li>track-b: no longer configured since ${since.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}; its rows are kept`);
    expect(await mrpRows('track-b')).toEqual(before);
  });

  it('retire-source refuses a source still configured, here or for the last sync that started', async () => {
    expect(refused(await runCli(['retire-source', 'track-a'], one()), EXIT.usage)).toMatch(
      /^pitwall: source track-a is still configured \(PITWALL_SOURCES \(.*\) names it\): remove it from the configuration, then run pitwall retire-source track-a again$/,
    );
    ok(await runCli(['sync', '--job', 'live'], both()));
    expect(refused(await runCli(['retire-source', 'track-b', '--delete'], one()), EXIT.usage)).toMatch(
      /^pitwall: source track-b is still configured for the last worker or sync that started \(at .+\): remove it from their PITWALL_SOURCES and restart them, then run pitwall retire-source track-b --delete again$/,
    );
    expect(refused(await runCli(['retire-source', 'nope'], one()), EXIT.usage)).toBe('pitwall: the warehouse has no source named nope; it has track-a, track-b');
    ok(await runCli(['sync', '--job', 'live'], one()));
    expect(await unconfiguredSince('track-b')).toBeDefined();
  });

  it('retire-source refuses while a run of the source is running', async () => {
    let started!: () => void;
    const requesting = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gated: typeof fetch = async (input, init) => {
      started();
      await released;
      return fetch(input, init);
    };
    const config = testConfig(db, sim, { MRP_API_KEY: keys()[1]! });
    const run = runSync({ pool: db.pool, config, logger: createSilentLogger(), source: 'track-b', fetch: gated }, { job: 'live' });
    try {
      await requesting;
      const { rows } = await db.pool.query<{ run_id: number }>(`SELECT run_id::int FROM pitwall.sync_runs WHERE source = 'track-b' AND status = 'running'`);
      expect(rows).toHaveLength(1);
      expect(refused(await runCli(['retire-source', 'track-b'], one()), EXIT.skipped)).toMatch(
        new RegExp(`^pitwall: run ${rows[0]!.run_id} \\(live, started .+\\) of source track-b is running: wait for it to end or stop the process running it, then run pitwall retire-source track-b again$`),
      );
    } finally {
      release();
    }
    expect((await run).status).toBe('succeeded');
  });

  it('marks its rows deleted, so the views stop showing them, and leaves the other source alone', async () => {
    const rows = await mrpRows('track-b');
    expect(await viewRows('track-b')).toBeGreaterThan(0);
    const openVersions = async () =>
      (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM analytics.point_standings_history WHERE source = 'track-b' AND valid_to IS NULL`)).rows[0]!.n;
    expect(await openVersions()).toBeGreaterThan(0);
    const other = await digest('track-a');
    const otherInViews = await viewRows('track-a');

    const r = await runCli(['retire-source', 'track-b', '--json'], one());
    ok(r);
    const out = JSON.parse(r.stdout) as { action: string; rows: Record<string, number> };
    expect(out.action).toBe('marked deleted');
    expect(Object.entries(out.rows).filter(([t]) => t.startsWith('mrp.')).reduce((n, [, c]) => n + c, 0)).toBe(rows.live);

    expect(await mrpRows('track-b')).toEqual({ all: rows.all, live: 0 });
    expect(await viewRows('track-b')).toBe(0);
    // The standings history closes the versions of the standings marked deleted (docs/scaling.md).
    expect(await openVersions()).toBe(0);
    expect(await digest('track-a')).toEqual(other);
    expect(await viewRows('track-a')).toBe(otherInViews);
    const status = await runCli(['status', '--source', 'track-b'], one());
    expect(status.stdout.split('\n')[0]).toMatch(/^Source track-b is no longer configured since .+; retired at .+: its rows are marked deleted \(pitwall retire-source track-b --delete removes them\)\.$/);
  });

  it('with --delete removes every row of it, and still leaves the other source alone', async () => {
    const other = await digest('track-a');
    const r = await runCli(['retire-source', 'track-b', '--delete'], one());
    ok(r);
    expect(r.stdout).toMatch(/^source track-b deleted: [1-9]\d* mrp rows and [1-9]\d* rows of its history and bookkeeping removed\n$/);
    const left: Record<string, number> = {};
    for (const t of await sourcedTables()) left[t] = (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t} WHERE source = 'track-b'`)).rows[0]!.n;
    expect(Object.keys(left).length).toBeGreaterThan(20);
    expect(Object.entries(left).filter(([, n]) => n > 0)).toEqual([]);
    expect(await digest('track-a')).toEqual(other);
    const status = await runCli(['status'], one());
    expect(status.stdout).not.toContain('track-b');
  });
});
