import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { configSecrets, loadConfig } from '../../src/config.js';
import { createPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { runSync } from '../../src/sync/run.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { createLoginRole, type LoginRole } from '../helpers/login-role.js';

/**
 * The API key and the database password, hunted everywhere pitwall writes: every line a real
 * `pitwall` process prints at debug level while faults drive it down its error paths, every
 * row of every table in every schema, and the worker's metrics. The database password is a
 * role's made for the test (see createLoginRole), so the server accepts it whether it checks
 * passwords or trusts local connections.
 */

const KEY = 'PITWALL-SECRET-KEY-5f3a';
const PASSWORD = 'PITWALL-DB-PASSWORD-77c1';
const forms = (s: string) => [s, encodeURIComponent(s), s.toLowerCase()];

let role: LoginRole;
beforeAll(async () => {
  role = await createLoginRole(inject('pgAdminUrl'), PASSWORD);
});
// Declared before the warehouse, so it runs after the database is dropped.
afterAll(() => role?.drop());

const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 8, key: KEY });
let proxy: Server;
let upstream: string;
let dbUrlWithPassword: string;
const outputs: Array<{ what: string; result: CliResult }> = [];

beforeAll(async () => {
  sim.setFaults({ rate: 0.3, kinds: ['http500', 'http429', 'reset', 'truncated', 'slow', 'invalid'], slowMs: 2000, retryAfterSeconds: 0 });
  // In front of the simulator, a proxy that quotes request URLs (key and all) back, as broken
  // proxies and error pages do: in a 200 body that is not JSON, and in a 404 page.
  proxy = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/v2/points/years/') return void res.writeHead(200).end(`<html>upstream error while serving ${req.url}</html>`);
    if (path === '/v2/schedules/driverStats/') return void res.writeHead(404).end(`no route for ${req.url}`);
    // A fault the simulator injects (a reset, a cut-off body) reaches the client as a dropped connection.
    void (async () => {
      try {
        const r = await fetch(`${sim.url}${req.url}`);
        const body = Buffer.from(await r.arrayBuffer());
        res.writeHead(r.status, Object.fromEntries(r.headers)).end(body);
      } catch {
        res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  upstream = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  dbUrlWithPassword = role.urlFor(db.url);
});
afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? (proxy.closeAllConnections(), proxy.close(() => resolve())) : resolve()));
});

const env = () => ({
  DATABASE_URL: dbUrlWithPassword,
  MRP_API_BASE_URL: upstream,
  MRP_API_KEY: KEY,
  PITWALL_LOG_LEVEL: 'debug',
  PITWALL_MAX_RPS: '0',
  PITWALL_MAX_ATTEMPTS: '2',
  PITWALL_RETRY_BASE_MS: '5',
  PITWALL_REQUEST_TIMEOUT_MS: '400',
});

describe('secrets in what a real process prints', () => {
  it('runs sync and status at debug level, through faults and error paths', async () => {
    outputs.push({ what: 'sync --json', result: await runCli(['sync', '--json'], env()) });
    outputs.push({ what: 'sync', result: await runCli(['sync'], env()) });
    outputs.push({ what: 'status --json', result: await runCli(['status', '--json'], env()) });
    outputs.push({ what: 'status', result: await runCli(['status'], env()) });
    const missingDb = new URL(dbUrlWithPassword);
    missingDb.pathname = '/pitwall_no_such_database';
    outputs.push({ what: 'sync, database missing', result: await runCli(['sync'], { ...env(), DATABASE_URL: missingDb.toString() }) });
    const badUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:notaport/x`;
    outputs.push({ what: 'sync, bad settings', result: await runCli(['sync'], { ...env(), DATABASE_URL: badUrl, PITWALL_CONCURRENCY: 'lots' }) });

    const all = outputs.map((o) => o.result.stdout + o.result.stderr).join('\n');
    // The paths that could leak were really taken.
    expect(all).toMatch(/upstream request done/);
    expect(all).toMatch(/retrying/);
    expect(all).toMatch(/scope failed/);
    expect(outputs[4]!.result.code).toBe(1);
    expect(outputs[5]!.result.code).toBe(2);
    expect(outputs[5]!.result.stderr).toContain('postgres://postgres:****@127.0.0.1:notaport/x');
  });

  it.each([
    ['the API key', KEY],
    ['the database password', PASSWORD],
  ])('never shows %s on stdout or stderr', (_what, secret) => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const { what, result } of outputs) {
      for (const form of forms(secret)) expect(result.stdout + result.stderr, what).not.toContain(form);
    }
  });
});

describe('secrets in the database', () => {
  it('stores neither secret in any row of any table in any schema', async () => {
    const tables = await db.pool.query<{ s: string; t: string }>(
      `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    expect(tables.rows.map((r) => `${r.s}.${r.t}`)).toEqual(expect.arrayContaining(['pitwall.sync_state', 'pitwall.rejects', 'mrp.results']));
    for (const { s, t } of tables.rows) {
      const hits = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${s}"."${t}" AS x WHERE x::text ILIKE ANY($1::text[])`,
        [[KEY, PASSWORD, encodeURIComponent(KEY)].map((f) => `%${f}%`)],
      );
      expect(hits.rows[0]!.n, `${s}.${t}`).toBe(0);
    }
  });

  it('keeps the scopes and the quoted URL, with the key taken out', async () => {
    const state = await db.pool.query(`SELECT params FROM pitwall.sync_state WHERE params <> ''`);
    expect(state.rows.length).toBeGreaterThan(10);
    for (const r of state.rows) expect(r.params).not.toMatch(/(^|&)key=/i);
    const rejects = await db.pool.query(`SELECT payload_snippet FROM pitwall.rejects WHERE endpoint = 'point_years'`);
    expect(rejects.rows.length).toBeGreaterThan(0);
    expect(rejects.rows[0].payload_snippet).toContain('key=[redacted]');
  });
});

describe('secrets in metrics and in-process logs', () => {
  it('leaves both out of every metric and every log line of a faulted run', async () => {
    const lines: string[] = [];
    const config = loadConfig(env(), {}, { require: ['apiKey', 'databaseUrl'] });
    const logger = createLogger({
      level: 'trace',
      secrets: configSecrets(config),
      destination: new Writable({ write: (c, _e, done) => void (lines.push(String(c)), done()) }),
    });
    const metrics = createMetrics();
    const pool = createPool(config.databaseUrl, { max: 6 });
    try {
      // A run whose schedule years draw RequestValid 0 (one request in twenty) walks nothing
      // under them and may take no retry: 2 requests and none retried, seen once in ten runs
      // here. The next run draws again.
      let faulted = 0;
      for (let runs = 0; faulted === 0 && runs < 5; runs++) {
        const summary = await runSync({ pool, config, logger, observer: metrics.observer });
        faulted = summary.retries + summary.scopes.failed;
      }
      expect(faulted).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
    const text = (await metrics.registry.metrics()) + lines.join('');
    expect(text).toContain('pitwall_upstream_requests_total');
    for (const form of [...forms(KEY), ...forms(PASSWORD)]) expect(text).not.toContain(form);
  });
});
