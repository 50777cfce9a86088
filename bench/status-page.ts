/**
 * What the worker's status page costs, measured over HTTP against a warehouse that already holds
 * synced data, and (with --screenshot) a picture of it taken by the system Chromium, the way the
 * browser test loads it.
 *
 *   DATABASE_URL=postgres://…/warehouse node bin/run-ts.js bench/status-page.ts [--requests 30] [--screenshot docs/status-page.png]
 *
 * Read-only: it starts the worker's HTTP endpoint on 127.0.0.1 over the warehouse and GETs
 * `/` and `/status.json`; nothing is written.
 */
import { parseArgs } from 'node:util';

import { Registry } from 'prom-client';

import { createPool } from '../src/db/pool.js';
import { createSilentLogger } from '../src/log.js';
import { startObservabilityServer } from '../src/observability/http-server.js';
import { loadStatusPage } from '../src/observability/status-page/data.js';
import { launchChromium } from '../test/helpers/chromium.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '30' }, screenshot: { type: 'string' } } });
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must name a warehouse that holds synced data');
const requests = Number(values.requests);

const pool = createPool(url, { max: 4 });
const server = await startObservabilityServer({
  port: 0,
  host: '127.0.0.1',
  health: async () => ({ ok: true }),
  registry: new Registry(),
  logger: createSilentLogger(),
  status: () => loadStatusPage(pool, { secrets: [] }),
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

try {
  const history = await pool.query<{ runs: number; scopes: number; results: number }>(
    `SELECT (SELECT count(*) FROM pitwall.sync_runs)::int AS runs, (SELECT count(*) FROM pitwall.sync_state)::int AS scopes,
            (SELECT greatest(c.reltuples, s.n_live_tup, 0) FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
              WHERE c.oid = to_regclass('mrp.results'))::float8 AS results`,
  );
  console.log(`warehouse: ${JSON.stringify(history.rows[0])}`);
  for (const path of ['/', '/status.json']) {
    const times: number[] = [];
    let bytes = 0;
    // The first request pays for connections and compiling; it is reported, not counted.
    for (let i = 0; i <= requests; i++) {
      const started = performance.now();
      const res = await fetch(`${server.url}${path}`);
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body.slice(0, 200)}`);
      const ms = performance.now() - started;
      if (i === 0) console.log(`${path}: first request ${ms.toFixed(1)} ms`);
      else times.push(ms);
      bytes = body.length;
    }
    times.sort((a, b) => a - b);
    console.log(
      `${path}: ${requests} requests, median ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${(times[times.length - 1] ?? NaN).toFixed(1)} ms, ${bytes} bytes`,
    );
  }
  if (values.screenshot) {
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1200, height: 900 });
      await page.goto(`${server.url}/`, { waitUntil: 'load' });
      await page.screenshot({ path: values.screenshot, fullPage: true });
      console.log(`screenshot: ${values.screenshot}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
  await pool.end();
}
