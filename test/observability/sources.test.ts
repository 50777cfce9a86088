import { beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startObservabilityServer, type ObservabilityServer } from '../../src/observability/http-server.js';
import { createMetrics, type WorkerMetrics } from '../../src/observability/metrics.js';
import { loadStatusPage, type StatusPageData } from '../../src/observability/status-page/data.js';
import { runSync, type RunSummary } from '../../src/sync/run.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';

const SOURCES = ['track-a', 'track-b'] as const;
const NEXT_FULL = '2031-01-01T03:00:00.000Z';

describe('/metrics and the status page of several sources', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 9, sites: 2 });
  const keyOf = (name: (typeof SOURCES)[number]) => sim.sites[SOURCES.indexOf(name)]?.key as string;
  const state: { metrics?: WorkerMetrics; runs: Partial<Record<string, RunSummary>> } = { runs: {} };
  const server = useResource<ObservabilityServer>(
    'the observability server',
    async () => {
      const metrics = (state.metrics = createMetrics(db.pool, SOURCES));
      return startObservabilityServer({
        port: 0,
        host: '127.0.0.1',
        health: async () => ({ ok: true }),
        registry: metrics.registry,
        logger: createSilentLogger(),
        status: () =>
          loadStatusPage(db.pool, {
            secrets: SOURCES.map(keyOf),
            sources: () => [{ name: 'track-a', nextRuns: { full: NEXT_FULL } }, { name: 'track-b' }],
          }),
      });
    },
    (s) => s.close(),
  );
  const get = async (path: string) => (await fetch(`${server.url}${path}`)).text();

  beforeAll(async () => {
    // One after the other: each run's drift series must survive the other source's run.
    for (const name of SOURCES) {
      const config = testConfig(db, sim, { MRP_API_KEY: keyOf(name) });
      state.runs[name] = await runSync({ pool: db.pool, config, logger: createSilentLogger(), source: name, observer: state.metrics?.observer });
      expect(state.runs[name]?.status).toBe('succeeded');
    }
  });

  it('labels every series of runs and requests with its source', async () => {
    const text = await get('/metrics');
    for (const source of SOURCES) {
      expect(text).toMatch(new RegExp(`^pitwall_runs_total\\{source="${source}",job="full",status="succeeded"\\} 1$`, 'm'));
      expect(text).toMatch(new RegExp(`^pitwall_run_duration_seconds_count\\{source="${source}",job="full",status="succeeded"\\} 1$`, 'm'));
      expect(text).toMatch(new RegExp(`^pitwall_last_success_timestamp_seconds\\{source="${source}",job="full"\\} \\S+$`, 'm'));
      expect(text).toMatch(new RegExp(`^pitwall_job_running\\{source="${source}",job="live"\\} 0$`, 'm'));
      expect(text).toMatch(new RegExp(`^pitwall_upstream_requests_total\\{source="${source}",endpoint="results",status="200"\\} [1-9]\\d*$`, 'm'));
      expect(text).toMatch(new RegExp(`^pitwall_rows_written_total\\{source="${source}",table="results",kind="inserted"\\} [1-9]\\d*$`, 'm'));
      // track-a's drift report stays beside track-b's, which ended later.
      expect(text).toMatch(new RegExp(`^pitwall_shape_drift_paths\\{source="${source}",endpoint="events",kind="unmodelled"\\} 0$`, 'm'));
    }
    // The requests of a run are counted under its own source, no other.
    const requests = (source: string) =>
      [...text.matchAll(new RegExp(`^pitwall_upstream_requests_total\\{source="${source}",[^}]*\\} (\\d+)$`, 'gm'))].reduce((n, m) => n + Number(m[1]), 0);
    for (const source of SOURCES) expect(requests(source)).toBe(state.runs[source]?.requests);
    for (const source of SOURCES) expect(text).not.toContain(keyOf(source));
  });

  it('gives each source\'s jobs, runs and endpoints in /status.json, its schedule with it', async () => {
    const data = JSON.parse(await get('/status.json')) as StatusPageData;
    expect(data.sources).toEqual([
      // No worker runs here: nobody owns either source.
      { source: 'track-a', next_runs: { full: NEXT_FULL }, owner: null, no_longer_configured: null },
      { source: 'track-b', next_runs: {}, owner: null, no_longer_configured: null },
    ]);
    expect(data.next_runs).toEqual({ full: NEXT_FULL });
    expect(data.jobs.map((j) => [j.source, j.job, j.last_status])).toEqual([
      ['track-a', 'full', 'succeeded'],
      ['track-a', 'season', null],
      ['track-a', 'live', null],
      ['track-b', 'full', 'succeeded'],
      ['track-b', 'season', null],
      ['track-b', 'live', null],
    ]);
    expect(data.runs.map((r) => [r.source, r.run_id])).toEqual(SOURCES.map((s) => [s, state.runs[s]?.runId]).reverse());
    expect(data.runs_per_job.full?.map((r) => r.source)).toEqual([...SOURCES]);
    for (const source of SOURCES) {
      const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE source = $1`, [source]);
      expect(data.endpoints.filter((e) => e.source === source).reduce((n, e) => n + e.scopes, 0)).toBe(rows[0]?.n);
    }
    // Without the worker's list, the page shows the sources the warehouse has runs of.
    expect((await loadStatusPage(db.pool, { secrets: [] })).sources.map((s) => s.source)).toEqual([...SOURCES]);
  });

  it('draws a source column and a duration chart per source on the page', async () => {
    const html = await get('/');
    expect(html).toContain('Sources: track-a, track-b.');
    expect(html).toMatch(new RegExp(`<tr><td class="n">${state.runs['track-b']?.runId}</td><td>track-b</td><td>full</td>`));
    expect(html).toContain('Duration of full runs of track-a');
    expect(html).toContain('Duration of full runs of track-b');
    expect(html).toMatch(/<td>track-b<\/td><td>results<\/td><td class="n">/);
  });
});
