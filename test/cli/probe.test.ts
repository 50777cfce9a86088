import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { BEAT_MS } from '../../src/coordination/lease.js';
import { currentClusterData } from '../../src/embedded/cluster-home.js';
import { openEmbeddedServer } from '../../src/embedded/server.js';
import { createSilentLogger } from '../../src/log.js';
import { PROBE_ATTEMPTS, retryAllowance } from '../../src/probe/sample.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { ENDPOINTS } from '../../src/sync/endpoints.js';
import { createWorker } from '../../src/worker/worker.js';
import { measureArrivalBunching } from '../helpers/arrival-bunching.js';
import { runCli } from '../helpers/cli.js';
import { useDatabase } from '../helpers/fixture.js';
import { startShapeProxy, type ShapeProxy } from '../helpers/shape-proxy.js';
import { simulatorClock, workerConfig } from '../worker/helpers.js';

const BUDGET = 20;
async function simulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ scale: 'tiny', seed: 5, ...options });
  onTestFinished(() => sim.close());
  return sim;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-probe-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// No DATABASE_URL: the probe needs none.
const envFor = (url: string, key: string) => ({ MRP_API_BASE_URL: url, MRP_API_KEY: key, PITWALL_MAX_RPS: '0' });

describe('pitwall probe', () => {
  it('samples every endpoint within 20 requests and saves the bodies without the key, wherever the upstream echoed it', async () => {
    const sim = await simulator();
    // An upstream that echoes the request back: a URL with the key in it, and the key alone.
    // The transform runs only once requests arrive, after `proxy` is assigned.
    const proxy: ShapeProxy = await startShapeProxy(sim.url, (path, body) => ({
      ...(body as object),
      RequestUrl: `${proxy.url}${path}?key=${encodeURIComponent(sim.key)}`,
      Echo: { Key: sim.key },
    }));
    onTestFinished(() => proxy.close());
    const dir = tempDir();
    const r = await runCli(['probe', '--save', dir], envFor(proxy.url, sim.key));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const total = sim.requests().total;
    expect(total).toBeGreaterThanOrEqual(ENDPOINTS.length);
    expect(total).toBeLessThanOrEqual(BUDGET);
    for (const ep of ENDPOINTS) expect(r.stdout).toContain(ep.name);
    // The echoed fields are unmodelled envelope fields of every endpoint, and are reported as such.
    expect(r.stdout).toMatch(/RequestUrl\s+string/);
    expect(r.stdout + r.stderr).not.toContain(sim.key);

    const files = readdirSync(dir).sort();
    expect(files).toEqual([...ENDPOINTS.map((e) => `${e.name}.json`), 'probe.json'].sort());
    for (const f of files) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(sim.key);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Record<string, unknown>;
    expect(results.Echo).toEqual({ Key: '[redacted]' });
    expect(String(results.RequestUrl)).toContain('key=[redacted]');
    expect(Array.isArray(results.Classes)).toBe(true);
  });

  it('says when the list key changed, and exits 1', async () => {
    const sim = await simulator();
    const proxy = await startShapeProxy(sim.url, (path, body) => {
      if (path !== '/v2/schedules/results/') return body;
      const { Classes, ...rest } = body as Record<string, unknown>;
      return { ...rest, ClassList: Classes };
    });
    onTestFinished(() => proxy.close());
    const r = await runCli(['probe', '--json'], envFor(proxy.url, sim.key));
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      samples: Array<{ endpoint: string; listKey: { expected: string; found: boolean; lists: string[] }; error?: string }>;
      endpoints: Array<{ endpoint: string; listKeyMissing: unknown; unmodelled: Array<{ path: string }> }>;
    };
    const sample = out.samples.find((s) => s.endpoint === 'results')!;
    expect(sample.listKey).toEqual({ expected: 'Classes', found: false, lists: ['ClassList'] });
    expect(sample.error).toMatch(/no "Classes" list/);
    const drift = out.endpoints.find((e) => e.endpoint === 'results')!;
    expect(drift.listKeyMissing).toEqual({ path: 'Classes', seen: 0, of: 1 });
    expect(drift.unmodelled.map((u) => u.path)).toContain('ClassList');
  });

  it.each([['request-valid-0'], ['http-error']] as const)('names MRP_API_KEY in one line and exits 4 when the key is refused (%s)', async (mode) => {
    const sim = await simulator({ invalidRequest: mode });
    const wrong = 'not-the-right-key-7731';
    const dir = tempDir();
    const r = await runCli(['probe', '--save', dir], envFor(sim.url, wrong));
    expect(r.code).toBe(EXIT.keyRefused);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('MRP_API_KEY');
    expect(r.stderr).not.toContain(wrong);
    expect(sim.requests().total).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('stops within its budget when the upstream keeps failing: first attempts and retries each bounded', async () => {
    const sim = await simulator({ faults: { rate: 1, kinds: ['http503'], retryAfterSeconds: 0 } });
    const r = await runCli(['probe'], { ...envFor(sim.url, sim.key), PITWALL_RETRY_BASE_MS: '1', PITWALL_MAX_ATTEMPTS: '10' });
    expect(r.code).not.toBe(0);
    const roots = ENDPOINTS.filter((e) => e.parent === null).length;
    // Only the roots can be asked (nothing to fan out from), each at most PROBE_ATTEMPTS times.
    expect(sim.requests().total).toBe(roots * PROBE_ATTEMPTS);
  });

  it('samples every endpoint through an upstream that answers the first request of each path with an error page, within budget and allowance', async () => {
    const sim = await simulator();
    const proxy = await startFlakyProxy(sim.url);
    onTestFinished(() => proxy.close());
    const r = await runCli(['probe'], { ...envFor(proxy.url, sim.key), PITWALL_RETRY_BASE_MS: '1' });
    expect(r.stdout).not.toMatch(/failed|skipped/);
    expect(r.code, r.stdout).toBe(0);
    for (const ep of ENDPOINTS) expect(r.stdout).toContain(ep.name);
    expect(proxy.firstAttempts()).toBe(ENDPOINTS.length);
    expect(proxy.total()).toBe(2 * ENDPOINTS.length);
    expect(proxy.total()).toBeLessThanOrEqual(BUDGET + retryAllowance(BUDGET));
  });

  it('keeps to --max-requests first attempts, and says how to raise the budget', async () => {
    const sim = await simulator();
    const r = await runCli(['probe', '--max-requests', '5'], envFor(sim.url, sim.key));
    expect(r.code).toBe(1);
    expect(sim.requests().total).toBe(5);
    expect(r.stdout).toContain('--max-requests raises it');
    const bad = await runCli(['probe', '--max-requests', '0'], envFor(sim.url, sim.key));
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('reports modelled fields whose values fail their type, and --suggest writes the coercion that fixes them', async () => {
    const sim = await simulator();
    const proxy = await startShapeProxy(sim.url, (path, body: { DriverStats?: Array<Record<string, unknown>> }) => {
      if (path !== '/v2/schedules/driverStats/') return undefined;
      for (const s of body.DriverStats ?? []) if (s.AvgStart !== null && s.AvgStart !== '') s.AvgStart = `${String(s.AvgStart)} avg`;
      return body;
    });
    onTestFinished(() => proxy.close());
    const r = await runCli(['probe'], envFor(proxy.url, sim.key));
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/DriverStats\[\]\.AvgStart\s+\d+/);
    expect(r.stdout).toMatch(/ avg/);
    const s = await runCli(['probe', '--suggest'], envFor(proxy.url, sim.key));
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toEqual({ version: 1, endpoints: { driver_stats: { 'DriverStats[]': { AvgStart: { coerce: [{ stripSuffix: ' avg' }] } } } } });
  });
});

/** A proxy that answers the first request of each path with an HTML error page (status 200), and forwards the rest. */
async function startFlakyProxy(target: string): Promise<{ url: string; close: () => Promise<void>; firstAttempts: () => number; total: () => number }> {
  const seen = new Set<string>();
  let total = 0;
  const server = createServer((req, res) => {
    total += 1;
    const url = new URL(req.url ?? '/', target);
    if (!seen.has(url.pathname)) {
      seen.add(url.pathname);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Server Error</h1></body></html>');
      return;
    }
    void fetch(url).then(async (upstream) => {
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    firstAttempts: () => seen.size,
    total: () => total,
  };
}

/**
 * A worker owns the default source of the warehouse `pool` is on, idle. A probe of that source
 * (`env`, at 10 requests/s) joins as its guest: it waits a beat, until the worker has seen it,
 * then keeps to half of the rate, so the key's busiest second at the simulator holds at most 5
 * (and one at its edges), where the probe alone sends 10.
 */
async function probeBesideOwner(pool: pg.Pool, url: string, sim: RunningSimulator, env: Record<string, string>): Promise<void> {
  const rate = { PITWALL_MAX_RPS: '10', PITWALL_GLOBAL_MAX_RPS: '0' };
  const worker = createWorker({ pool, config: workerConfig({ url }, sim, rate), logger: createSilentLogger(), now: simulatorClock(sim) });
  try {
    await worker.start();
    expect(worker.owned()).toEqual(['default']);
    sim.resetRequests();
    const bunching = measureArrivalBunching();
    const started = performance.now();
    const r = await runCli(['probe', '--json'], { ...env, ...rate }).finally(() => bunching.stop());
    expect(r.code, r.stderr).toBe(0);
    expect(performance.now() - started).toBeGreaterThan(BEAT_MS + 1_000);
    expect(sim.requests().total).toBeGreaterThanOrEqual(ENDPOINTS.length);
    // Half of 10/s: 5, one more at a second's edges, and what this process's held-up event loop bunched.
    expect(sim.requests().bySite[1]?.peakPerSecond).toBeLessThanOrEqual(6 + bunching.allowance(5));
  } finally {
    await worker.stop();
  }
}

describe('pitwall probe beside a warehouse', () => {
  const db = useDatabase();

  it('joins as a guest of the worker that owns its source, and keeps to its share of the rate', async () => {
    const sim = await simulator();
    await probeBesideOwner(db.pool, db.url, sim, { ...envFor(sim.url, sim.key), DATABASE_URL: db.url });
  });

  it('keeps to its own rate where the warehouse is not migrated', async () => {
    const sim = await simulator();
    await db.pool.query('DROP SCHEMA pitwall CASCADE');
    // Debug: a probe shows only its report and errors below it.
    const r = await runCli(['probe', '--json', '--log-level', 'debug'], { ...envFor(sim.url, sim.key), DATABASE_URL: db.url });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('not migrated; the probe keeps to PITWALL_MAX_RPS on its own');
  });
});

describe('pitwall probe beside the embedded warehouse', () => {
  it('joins as a guest while the warehouse\'s server runs, and never starts it', async () => {
    const sim = await simulator();
    const dir = tempDir();
    const env = { ...envFor(sim.url, sim.key), PITWALL_DATA_DIR: dir, PITWALL_MAX_RPS: '50', PITWALL_GLOBAL_MAX_RPS: '0' };
    // A migrated warehouse whose server is down (the last command to leave it stopped it).
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const pidFile = join(currentClusterData(dir), 'postmaster.pid');
    expect(existsSync(pidFile)).toBe(false);
    const alone = await runCli(['probe', '--json', '--log-level', 'debug'], env);
    expect(alone.code).toBe(0);
    expect(alone.stderr).toContain('server is not running, so no sync is using it');
    expect(existsSync(pidFile)).toBe(false);

    // Up, as a worker keeps it: the probe joins it as the worker's guest.
    const server = await openEmbeddedServer({ dir, purpose: 'a worker, for the test' });
    try {
      const pool = new pg.Pool({ connectionString: server.url, max: 4 });
      try {
        await probeBesideOwner(pool, server.url, sim, env);
      } finally {
        await pool.end();
      }
      // The probe left the server to the process that uses it.
      expect(existsSync(pidFile)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
