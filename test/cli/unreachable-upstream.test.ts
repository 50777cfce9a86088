import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createWorker } from '../../src/worker/worker.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/ports.js';

/**
 * MRP_API_BASE_URL on a port nothing listens on: `sync` and `probe` end with one line that names
 * the variable, the host and the cause, exit 5, and show no stack trace; the run is recorded
 * failed with that line, which is what a worker logs before its next schedule.
 */

const STACK_LINE = /^\s+at /m;

describe('an upstream that cannot be reached', () => {
  let db: TestDatabase;
  let base: string;
  let env: Record<string, string>;
  let line: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    base = `http://127.0.0.1:${await freePort()}`;
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: `${base}/`, MRP_API_KEY: 'k-unreachable-4411', PITWALL_RETRY_BASE_MS: '1', PITWALL_MAX_RPS: '0' };
    line = `pitwall: the upstream at MRP_API_BASE_URL (${base}) could not be reached: connection refused; check the URL and the network`;
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('pitwall sync: one line naming MRP_API_BASE_URL, exit 5, the run recorded failed with it', async () => {
    const r = await runCli(['sync', '--json'], env);
    expect(r.code).toBe(EXIT.upstreamUnreachable);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(line);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout + r.stderr).not.toContain('k-unreachable-4411');
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', upstreamUnreachable: true });
    const { rows } = await db.pool.query(`SELECT status, error FROM pitwall.sync_runs ORDER BY run_id DESC LIMIT 1`);
    expect(rows[0]).toEqual({ status: 'failed', error: line.replace(/^pitwall: /, '') });
  });

  it('pitwall sync at the default log level: the cause said once, no retry or per-root warning before it', async () => {
    const r = await runCli(['sync'], env);
    expect(r.code).toBe(EXIT.upstreamUnreachable);
    const cause = line.replace(/^pitwall: /, '');
    expect((r.stdout + r.stderr).split(cause)).toHaveLength(2);
    expect(r.stderr).not.toMatch(/retrying|giving up|scope failed/);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(line);
    // The summary on stdout still counts the retries and the failed scopes.
    expect(r.stdout).toMatch(/\d+ retries; .*failed 4/);
  });

  it('pitwall sync: the same line when the client gives up on the upstream before every root was tried', async () => {
    const r = await runCli(['sync'], { ...env, PITWALL_MAX_CONSECUTIVE_FAILURES: '1' });
    expect(r.stderr).toContain('upstream considered down');
    expect(r.code).toBe(EXIT.upstreamUnreachable);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(line);
    expect(r.stderr).not.toMatch(STACK_LINE);
  });

  it('pitwall probe: the same line alone, exit 5', async () => {
    const r = await runCli(['probe'], env);
    expect(r.code).toBe(EXIT.upstreamUnreachable);
    expect(r.stderr.trimEnd().split('\n')).toEqual([line]);
    expect(r.stdout).toBe('');
  });

  it('a worker logs the line, records the run failed with it, and goes on to its next run', async () => {
    const logged: Array<{ level: number; msg: string }> = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void logged.push(JSON.parse(l) as { level: number; msg: string }) } });
    const config = loadConfig(env, {}, { require: ['apiKey', 'databaseUrl'] });
    const worker = createWorker({ pool: db.pool, config, logger });
    try {
      const runs = [await worker.runJob('live'), await worker.runJob('live')];
      expect(runs.map((r) => [r.status, r.upstreamUnreachable, r.error])).toEqual([
        ['failed', true, line.replace(/^pitwall: /, '')],
        ['failed', true, line.replace(/^pitwall: /, '')],
      ]);
      expect(logged.filter((l) => l.msg === line.replace(/^pitwall: /, '') && l.level === 50)).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  });
});
