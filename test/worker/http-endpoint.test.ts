import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};

describe("the worker's health and metrics endpoint", () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 4 })]);
    const config = workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_MAX_ATTEMPTS: '2' });
    worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim) });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  it('answers /healthz 200 with JSON while the scheduler runs and the database answers', async () => {
    const r = await get(`${worker.url}/healthz`);
    expect(r.status).toBe(200);
    expect(r.type).toContain('application/json');
    expect(JSON.parse(r.text)).toMatchObject({ ok: true, scheduler: 'running', database: 'ok' });
  });

  it('serves Prometheus metrics of requests, rows, runs and last success per job', async () => {
    expect((await worker.runJob('full')).status).toBe('succeeded');
    const r = await get(`${worker.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/plain');
    expect(r.text).toMatch(/^pitwall_upstream_requests_total\{source="default",endpoint="point_standings",status="200"\} [1-9]\d*$/m);
    expect(r.text).toMatch(/^pitwall_upstream_request_duration_seconds_bucket\{le="0\.05",source="default",endpoint="results"\} \d+$/m);
    expect(r.text).toMatch(/^pitwall_rows_written_total\{source="default",table="results",kind="inserted"\} [1-9]\d*$/m);
    expect(r.text).toMatch(/^pitwall_runs_total\{source="default",job="full",status="succeeded"\} 1$/m);
    expect(r.text).toMatch(/^pitwall_run_duration_seconds_count\{source="default",job="full",status="succeeded"\} 1$/m);
    const lastSuccess = Number(/^pitwall_last_success_timestamp_seconds\{source="default",job="full"\} (\S+)$/m.exec(r.text)?.[1]);
    expect(Math.abs(lastSuccess - Date.now() / 1000)).toBeLessThan(60);
  });

  it('counts retries by endpoint and reason', async () => {
    sim.setFaults({ rate: 1, kinds: ['http503'], retryAfterSeconds: 0 });
    await worker.runJob('live');
    sim.setFaults({});
    const r = await get(`${worker.url}/metrics`);
    expect(r.text).toMatch(/^pitwall_upstream_retries_total\{source="default",endpoint="results_feed",reason="http 503"\} [1-9]\d*$/m);
    expect(r.text).toMatch(/^pitwall_upstream_requests_total\{source="default",endpoint="results_feed",status="503"\} [1-9]\d*$/m);
  });

  it('answers 404 elsewhere', async () => {
    expect((await get(`${worker.url}/nowhere`)).status).toBe(404);
  });
});

describe('/healthz when the database is gone', () => {
  it('answers 503 with the reason', async () => {
    const [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 4 })]);
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim, { PITWALL_HTTP_PORT: '0' }), logger: createSilentLogger() });
    try {
      await worker.start();
      // Dropped under the running worker, whose pool (and job queue's connection) stays open.
      const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE ${new URL(db.url).pathname.slice(1)} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
      const r = await get(`${worker.url}/healthz`);
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text)).toMatchObject({ ok: false, database: 'unreachable', reason: expect.stringMatching(/^database unreachable/) });
    } finally {
      await worker.stop();
      await sim.close();
      await db.drop();
    }
  });

  it('and answers unhealthy once the worker is stopping', async () => {
    const [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 4 })]);
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() });
    try {
      await worker.start();
      expect((await worker.health()).ok).toBe(true);
      await worker.stop();
      expect(await worker.health()).toMatchObject({ ok: false, reason: 'scheduler is stopping' });
    } finally {
      await sim.close();
      await db.drop();
    }
  });
});
