import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { warehouseTables } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { launchChromium, type Chromium } from '../helpers/chromium.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { simulatorClock, workerConfig } from './helpers.js';

/** The status page as a person sees it: the system Chromium loads it from the worker. */
describe('the status page in a browser', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  let worker: Worker;
  let browser: Chromium | undefined;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 6 })]);
    const config = workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_MAX_ATTEMPTS: '1' });
    worker = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim) });
    await worker.start();
  });
  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await sim?.close();
    await db?.drop();
  });

  /** Loads `/`, recording every request the page makes and every script error or console error. */
  async function load() {
    // Started by the first test that needs it, so a missing browser fails each test (with what
    // to install) rather than skipping it.
    browser ??= await launchChromium();
    const page = await browser.context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    const response = await page.goto(`${worker.url}/`, { waitUntil: 'load' });
    return { page, status: response?.status(), requests, problems };
  }

  it('shows a succeeded run, every table and the charts after a sync', async () => {
    const run = await worker.runJob('full');
    expect(run.status).toBe('succeeded');
    const { page, status, requests, problems } = await load();
    try {
      expect(status).toBe(200);
      expect(await page.title()).toBe('pitwall status');
      const runRow = page.locator('#runs tbody tr', { has: page.locator(`td:first-child:text-is("${run.runId}")`) });
      expect(await runRow.innerText()).toMatch(/full\s+cron\s+succeeded/);
      const tables = await page.locator('#tables tbody td:first-child').allInnerTexts();
      expect(tables.sort()).toEqual(Object.keys(warehouseTables).sort());
      expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(3);
      const bar = page.locator('svg.chart rect.bar').first();
      expect((await bar.boundingBox())?.height).toBeGreaterThan(0);
      expect(await page.locator('body').innerText()).toContain('Every job\'s latest finished run succeeded.');
      // Self-contained: the document is the only request.
      expect(requests).toEqual([`${worker.url}/`]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('marks a failed run and its failing scope after a run against a failing upstream', async () => {
    sim.setFaults({ rate: 1, kinds: ['http503'], retryAfterSeconds: 0 });
    const run = await worker.runJob('live');
    sim.setFaults({});
    expect(run.status).toBe('failed');
    const { page, requests, problems } = await load();
    try {
      const runRow = page.locator('#runs tbody tr.failed', { has: page.locator(`td:first-child:text-is("${run.runId}")`) });
      expect(await runRow.innerText()).toMatch(/live\s+cron\s+failed/);
      // Drawn in red, so it stands out.
      expect(await page.evaluate('getComputedStyle(document.querySelector("#runs tbody tr.failed td")).backgroundColor')).toBe('rgb(253, 236, 236)');
      expect(await page.locator('#headline').innerText()).toMatch(new RegExp(`^Not up to date now:\\s+live: its latest finished run \\(${run.runId}\\) failed; last success never$`));
      const failing = await page.locator('#failing tbody tr').allInnerTexts();
      expect(failing.some((row) => row.startsWith('results_feed') && row.includes('error'))).toBe(true);
      expect(await page.locator('svg.chart rect.bar.failed').count()).toBeGreaterThan(0);
      expect(await page.locator('body').innerText()).not.toContain(sim.key);
      expect(requests).toEqual([`${worker.url}/`]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
