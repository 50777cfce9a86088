import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { warehouseTables } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import type { StatusPageData } from '../../src/observability/status-page/data.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import type { RunSummary } from '../../src/sync/run.js';
import { loadDrift } from '../../src/sync/shape/load.js';
import { driftCounts } from '../../src/sync/shape/report.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

const get = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

/** An error text as hostile as an upstream body can make it: markup, quotes, and the key itself. */
const hostile = (key: string) => `upstream said <script>alert("x")</script><img src=x onerror=alert(1)> & 'key=${key}' ${encodeURIComponent(key)}`;

describe('the status page after real runs', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  let full: RunSummary;
  let live: RunSummary;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 5 })]);
    const config = workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_MAX_ATTEMPTS: '1' });
    worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim) });
    await worker.start();
    full = await worker.runJob('full');
    sim.setFaults({ rate: 1, kinds: ['http503'], retryAfterSeconds: 0 });
    live = await worker.runJob('live');
    sim.setFaults({});
    // Error texts are whatever the upstream or the network said; make one say the worst.
    await db.pool.query(`UPDATE pitwall.sync_state SET last_error = $1 WHERE endpoint = 'results_feed'`, [hostile(sim.key)]);
    await db.pool.query(`UPDATE pitwall.sync_runs SET error = $1 WHERE run_id = $2`, [hostile(sim.key), live.runId]);
    // The sync recorded the shapes it saw (all modelled, from the simulator); two fields the
    // schemas do not model, as a changed upstream would leave them.
    await db.pool.query(
      `INSERT INTO pitwall.shape_paths (endpoint, path, json_types, seen, modelled)
       VALUES ('results', 'Classes[].NewField', '{string}', 2, false), ('results', 'Classes[].Other', '{number}', 1, false)`,
    );
    await db.pool.query(
      `INSERT INTO pitwall.rejects (run_id, endpoint, params, reason) VALUES ($1, 'lineups', 'EventId=1', 'x'), ($1, 'lineups', 'EventId=2', 'y')`,
      [full.runId],
    );
  });
  afterAll(async () => {
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('gives the runs, endpoints and tables as JSON', async () => {
    expect(full.status).toBe('succeeded');
    expect(live.status).toBe('failed');
    const r = await get(`${worker.url}/status.json`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const data = JSON.parse(r.text) as StatusPageData;

    expect(data.runs.map((x) => [x.run_id, x.job, x.status])).toEqual([
      [live.runId, 'live', 'failed'],
      [full.runId, 'full', 'succeeded'],
    ]);
    const fullRun = data.runs.find((x) => x.run_id === full.runId);
    const written = Object.values(full.tables).reduce((n, t) => n + (t?.inserted ?? 0) + (t?.updated ?? 0) + (t?.deleted ?? 0), 0);
    expect(fullRun).toMatchObject({ trigger: 'cron', requests: full.requests, retries: full.retries, rows_written: written });
    expect(written).toBeGreaterThan(0);
    expect(data.runs_per_job.full?.map((x) => x.run_id)).toEqual([full.runId]);
    expect(data.jobs.find((j) => j.job === 'live')).toMatchObject({ last_status: 'failed', last_success_at: null });

    const { rows: scopes } = await db.pool.query<{ endpoint: string; n: number }>(`SELECT endpoint, count(*)::int AS n FROM pitwall.sync_state GROUP BY endpoint`);
    expect(data.endpoints.map((e) => [e.endpoint, e.scopes]).sort()).toEqual(scopes.map((s) => [s.endpoint, s.n]).sort());
    const feed = data.endpoints.find((e) => e.endpoint === 'results_feed');
    expect(feed?.error).toBe(1);
    expect(feed?.failing[0]?.last_error).toContain('[redacted]');
    expect(data.drift_recorded).toBe(true);
    // The two fields planted above, and nothing else: the simulator's shapes are all modelled.
    const drift = Object.fromEntries(data.endpoints.map((e) => [e.endpoint, e.drift]));
    expect(drift.results).toEqual({ unmodelled: 2, missing: 0, failing: 0 });
    expect(drift.events).toEqual({ unmodelled: 0, missing: 0, failing: 0 });
    // The same counts as `pitwall drift`, `status` and the gauge.
    const counts = driftCounts(await loadDrift(db.pool));
    for (const e of data.endpoints) expect(e.drift, e.endpoint).toEqual(counts[e.endpoint] ?? null);
    expect(data.endpoints.find((e) => e.endpoint === 'lineups')).toMatchObject({ items_rejected: 2 });
    expect(data.endpoints.find((e) => e.endpoint === 'results')?.items_rejected).toBe(0);

    expect(data.tables.map((t) => t.table).sort()).toEqual(Object.keys(warehouseTables).sort());
    const { rows: counted } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.results');
    const results = data.tables.find((t) => t.table === 'results');
    expect(results).toMatchObject({ rows: counted[0]?.n, rows_exact: true, last_job: 'full', failing_scopes: 0, behind: false });
    expect(Date.parse(results?.last_change_at ?? '')).toBeGreaterThan(Date.now() - 10 * 60_000);
    // The feed was last checked by the full run, and the live run that failed since left its scope failing.
    const feedTable = data.tables.find((t) => t.table === 'results_feed');
    expect(feedTable).toMatchObject({ last_job: 'live', job_last_status: 'failed', failing_scopes: 1, behind: true });
    expect(feedTable?.checked_at).toBe(feed?.last_success_at);
  });

  it('never shows the API key, in the page or in the JSON', async () => {
    for (const path of ['/', '/status.json']) {
      const { text } = await get(`${worker.url}${path}`);
      expect(text).toContain('[redacted]');
      expect(text).not.toContain(sim.key);
      expect(text).not.toContain(encodeURIComponent(sim.key));
    }
  });

  it('renders a page a person reads: failed runs marked, every table, charts, escaped text', async () => {
    const r = await get(`${worker.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = r.text;
    expect(html).toMatch(new RegExp(`<tr class="failed"><td class="n">${live.runId}</td><td>live</td>`));
    for (const table of Object.keys(warehouseTables)) expect(html).toContain(`<td>${table}</td>`);
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(3);
    expect(html).toContain('Duration of full runs');
    expect(html).toMatch(/<td>results<\/td>(<td[^>]*>[^<]*<\/td>)*<td class="n">2 \/ 0 \/ 0<\/td><\/tr>/);
    // The hostile text is shown, as text: no element, no attribute came through.
    expect(html).toContain('upstream said &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &#39;key=[redacted]&#39;');
    expect(html).not.toMatch(/<script|<img|onerror=alert\(1\)>/i);
    // Self-contained: nothing fetched from anywhere.
    expect(html).not.toMatch(/\b(src|href)="(?!status\.json"|data:,")/);
  });

  it('reads nothing from the request: a query string or another method changes nothing or is refused', async () => {
    const plain = JSON.parse((await get(`${worker.url}/status.json`)).text) as StatusPageData;
    const queried = JSON.parse((await get(`${worker.url}/status.json?limit=1;DROP TABLE pitwall.sync_runs`)).text) as StatusPageData;
    expect(queried.runs.map((x) => x.run_id)).toEqual(plain.runs.map((x) => x.run_id));
    const post = await fetch(`${worker.url}/status.json`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    await post.text();
  });
});

describe('PITWALL_HTTP_TOKEN', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  const token = 'a-long-enough-test-token-1234';
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 5 })]);
    const config = workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_HTTP_TOKEN: token });
    worker = createWorker({ pool: db.pool, config, logger: createSilentLogger() });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('guards the page, its JSON and the metrics, and leaves /healthz open', async () => {
    for (const path of ['/', '/status.json', '/metrics']) {
      const none = await get(`${worker.url}${path}`);
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('Bearer');
      // A refusal never echoes the credential it was sent.
      const wrong = await get(`${worker.url}${path}`, { authorization: `Bearer ${token}x` });
      expect(wrong.status, path).toBe(401);
      expect(wrong.text).not.toContain(token);
      expect((await get(`${worker.url}${path}`, { authorization: `Basic ${token}` })).status, path).toBe(401);
      expect((await get(`${worker.url}${path}`, { authorization: `Bearer ${token}` })).status, path).toBe(200);
    }
    const empty = JSON.parse((await get(`${worker.url}/status.json`, { authorization: `Bearer ${token}` })).text) as StatusPageData;
    expect(empty).toMatchObject({ runs: [], endpoints: [], drift_recorded: false });
    expect(empty.tables.every((t) => t.rows === 0 && t.last_change_at === null && t.checked_at === null)).toBe(true);
    expect((await get(`${worker.url}/`, { authorization: `Bearer ${token}` })).text).toContain('No run yet.');
    expect((await get(`${worker.url}/healthz`)).status).toBe(200);
  });

  it('speaks of an empty warehouse in sentences, naming no internal table', async () => {
    const page = (await get(`${worker.url}/`, { authorization: `Bearer ${token}` })).text;
    expect(page).toContain('No response shapes recorded yet: they are counted as runs load responses.');
    // A schema-qualified name (pitwall.sync_runs, mrp.drivers) means nothing to a reader of the page.
    expect(page.match(/\b(?:pitwall|mrp|analytics)\.[a-z_]+/g)).toBeNull();
  });

  it('is open without the token when none is configured', async () => {
    const open = createWorker({ pool: db.pool, config: workerConfig(db, sim, { PITWALL_HTTP_PORT: '0' }), logger: createSilentLogger() });
    await open.start();
    try {
      expect((await get(`${open.url}/status.json`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe('the status page on the embedded warehouse', () => {
  it('reads the same data from the embedded warehouse', async () => {
    const [db, sim] = await Promise.all([createTestDatabase('embedded'), startSimulator({ scale: 'tiny', seed: 5 })]);
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim, { PITWALL_HTTP_PORT: '0' }), logger: createSilentLogger(), now: simulatorClock(sim) });
    try {
      await worker.start();
      const run = await worker.runJob('full');
      expect(run.status).toBe('succeeded');
      const data = JSON.parse((await get(`${worker.url}/status.json`)).text) as StatusPageData;
      expect(data.runs.map((r) => [r.run_id, r.status])).toEqual([[run.runId, 'succeeded']]);
      const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.results');
      expect(data.tables.find((t) => t.table === 'results')?.rows).toBe(rows[0]?.n);
      expect((await get(`${worker.url}/`)).text).toContain('<svg ');
    } finally {
      await worker.stop();
      await sim.close();
      await db.drop();
    }
  });
});
