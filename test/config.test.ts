import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ConfigError } from '../src/api/errors.js';
import { CONFIG_VARIABLES, configSecrets, loadConfig } from '../src/config.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  return expect.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults and returns a frozen object', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      apiBaseUrl: 'https://api.myracepass.com',
      concurrency: 4,
      maxRps: 5,
      globalMaxRps: 20,
      requestTimeoutMs: 30_000,
      maxAttempts: 5,
      maxRetryWaitMs: 60_000,
      logLevel: 'info',
      cronLive: '*/5 * * * *',
      timezone: 'UTC',
      dataDir: './.pitwall',
      keepResponses: 1,
    });
    expect(config.apiKey).toBeUndefined();
    expect(config.httpPort).toBeUndefined();
    expect(config.httpHost).toBe('127.0.0.1');
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes an IP address or host name for PITWALL_HTTP_HOST, an IPv6 one with or without brackets', () => {
    expect(loadConfig({}, { httpHost: '0.0.0.0' }).httpHost).toBe('0.0.0.0');
    expect(loadConfig({ PITWALL_HTTP_HOST: '[::1]' }).httpHost).toBe('::1');
    expect(loadConfig({ PITWALL_HTTP_HOST: 'localhost' }).httpHost).toBe('localhost');
    expect(configError(() => loadConfig({ PITWALL_HTTP_HOST: 'http://0.0.0.0' })).message).toMatch(/^PITWALL_HTTP_HOST: expected an IP address or host name/);
  });

  it('lets flags override the environment, which overrides defaults; empty means unset', () => {
    const env = { PITWALL_CONCURRENCY: '8', PITWALL_MAX_RPS: '0.5', PITWALL_LOG_LEVEL: '' };
    const config = loadConfig(env, { concurrency: '16' });
    expect(config.concurrency).toBe(16);
    expect(config.maxRps).toBe(0.5);
    expect(config.logLevel).toBe('info');
  });

  it('trims a trailing slash from the base URL and refuses non-http URLs', () => {
    expect(loadConfig({ MRP_API_BASE_URL: 'http://127.0.0.1:4321//' }).apiBaseUrl).toBe('http://127.0.0.1:4321');
    expect(configError(() => loadConfig({ MRP_API_BASE_URL: 'ftp://x' })).message).toMatch(/^MRP_API_BASE_URL: /);
  });

  it('caps all sources together at four keys\' PITWALL_MAX_RPS unless told, with none when that is unlimited', () => {
    expect(loadConfig({ PITWALL_MAX_RPS: '2.5' }).globalMaxRps).toBe(10);
    expect(loadConfig({ PITWALL_MAX_RPS: '0' }).globalMaxRps).toBe(0);
    expect(loadConfig({ PITWALL_MAX_RPS: '0', PITWALL_GLOBAL_MAX_RPS: '12' }).globalMaxRps).toBe(12);
    expect(loadConfig({ PITWALL_GLOBAL_MAX_RPS: '0' }, { globalMaxRps: '7.5' }).globalMaxRps).toBe(7.5);
    expect(loadConfig({ PITWALL_GLOBAL_MAX_RPS: '0' }).globalMaxRps).toBe(0);
    expect(configError(() => loadConfig({ PITWALL_GLOBAL_MAX_RPS: '-1' })).message).toBe('PITWALL_GLOBAL_MAX_RPS: expected a number >= 0, got "-1"');
  });

  it('keeps at least one version of each response', () => {
    expect(loadConfig({ PITWALL_KEEP_RESPONSES: '3' }).keepResponses).toBe(3);
    expect(configError(() => loadConfig({ PITWALL_KEEP_RESPONSES: '0' })).message).toBe(
      'PITWALL_KEEP_RESPONSES: expected an integer from 1 to 1000, got "0"',
    );
  });

  it('checks each cron field\'s values and steps, saying which one is wrong', () => {
    expect(configError(() => loadConfig({ PITWALL_CRON_FULL: '0 25 * * *' })).message).toBe(
      'PITWALL_CRON_FULL: expected a cron expression of 5 or 6 fields (0 25 * * *: hour 25 is out of 0-23)',
    );
    expect(configError(() => loadConfig({}, { cronLive: '*/61 * * * *' })).message).toBe(
      '--cron-live: expected a cron expression of 5 or 6 fields (*/61 * * * *: minute step 61 is out of 1-59)',
    );
    expect(configError(() => loadConfig({ PITWALL_CRON_SEASON: '0 3 * *' })).message).toBe(
      'PITWALL_CRON_SEASON: expected a cron expression of 5 or 6 fields (0 3 * *: 4 fields)',
    );
    expect(loadConfig({ PITWALL_CRON_FULL: ' 0 9-17/2 * * mon-fri ' }).cronFull).toBe('0 9-17/2 * * mon-fri');
  });

  it('names the variable, the expectation and the value it rejects', () => {
    const err = configError(() => loadConfig({ PITWALL_CONCURRENCY: 'abc' }));
    expect(err.message).toBe('PITWALL_CONCURRENCY: expected an integer from 1 to 64, got "abc"');
  });

  it('names the flag when the bad value came from one, and lists every bad value', () => {
    const err = configError(() => loadConfig({ PITWALL_TIMEZONE: 'Mars/Olympus' }, { concurrency: 65 }));
    expect(err.issues.map((i) => i.variable)).toEqual(['--concurrency', 'PITWALL_TIMEZONE']);
  });

  it('requires only what the command asks for', () => {
    expect(() => loadConfig({})).not.toThrow();
    const err = configError(() => loadConfig({}, {}, { require: ['apiKey', 'databaseUrl'] }));
    expect(err.message.split('\n')).toEqual([expect.stringMatching(/^MRP_API_KEY: required, not set: /), 'DATABASE_URL: required, not set']);
    const config = loadConfig({ MRP_API_KEY: 'k', DATABASE_URL: 'postgres://h/db' }, {}, { require: ['apiKey'] });
    expect(config.apiKey.length).toBe(1);
  });

  it('masks URL passwords and never shows the API key in a message', () => {
    const db = configError(() => loadConfig({ DATABASE_URL: 'mysql://pitwall:hunter2@db/x' }));
    expect(db.message).toBe('DATABASE_URL: expected a postgres:// or postgresql:// URL, got "mysql://pitwall:****@db/x"');
    const key = configError(() => loadConfig({ MRP_API_KEY: '  \t' }));
    expect(key.message).toBe('MRP_API_KEY: expected a non-empty key, got [redacted]');
  });

  it('hands the API key and database password to redaction', () => {
    const config = loadConfig({ MRP_API_KEY: 'k1', DATABASE_URL: 'postgres://u:p%40ss@h/db' });
    expect(configSecrets(config)).toEqual(['k1', 'p%40ss', 'p@ss']);
  });
});

describe('PITWALL_LOCK_DATABASE_URL', () => {
  it('is optional, masked when refused, and its password handed to redaction', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db' }).lockDatabaseUrl).toBeUndefined();
    const err = configError(() => loadConfig({ DATABASE_URL: 'postgres://h/db', PITWALL_LOCK_DATABASE_URL: 'mysql://u:hunter2@h/db' }));
    expect(err.message).toBe('PITWALL_LOCK_DATABASE_URL: expected a postgres:// or postgresql:// URL, got "mysql://u:****@h/db"');
    const config = loadConfig({ DATABASE_URL: 'postgres://u:pool-pw@pooler:6432/db', PITWALL_LOCK_DATABASE_URL: 'postgres://u:lock%25pw@h/db' });
    expect(config.lockDatabaseUrl).toBe('postgres://u:lock%25pw@h/db');
    expect(configSecrets(config)).toEqual(['pool-pw', 'lock%25pw', 'lock%pw']);
  });

  it('is refused without DATABASE_URL: the embedded warehouse is reached directly', () => {
    const err = configError(() => loadConfig({ PITWALL_LOCK_DATABASE_URL: 'postgres://u:pw@h/db' }));
    expect(err.message).toMatch(/^PITWALL_LOCK_DATABASE_URL: needs DATABASE_URL/);
    expect(err.message).not.toContain('pw@');
  });
});

describe('CONFIG_VARIABLES', () => {
  it('lists every setting once, with a description, for --help and docs/configuration.md', () => {
    const shapes = join(mkdtempSync(join(tmpdir(), 'pitwall-config-')), 'shapes.json');
    writeFileSync(shapes, '{"version": 1, "endpoints": {}}');
    const keys = Object.keys(
      loadConfig({ MRP_API_KEY: 'k', DATABASE_URL: 'postgres://h/db', PITWALL_LOCK_DATABASE_URL: 'postgres://h/db', PITWALL_HTTP_PORT: '0', PITWALL_SQL_PORT: '5433', PITWALL_HTTP_TOKEN: 'x'.repeat(16), PITWALL_SHAPES: shapes, PITWALL_SOURCES: '/etc/pitwall/sources.json' }),
    );
    rmSync(dirname(shapes), { recursive: true, force: true });
    expect(CONFIG_VARIABLES.map((v) => v.key).sort()).toEqual(keys.sort());
    expect(new Set(CONFIG_VARIABLES.map((v) => v.env)).size).toBe(CONFIG_VARIABLES.length);
    for (const v of CONFIG_VARIABLES) expect(v.description.length, v.env).toBeGreaterThan(10);
    expect(CONFIG_VARIABLES.find((v) => v.key === 'apiKey')?.flag).toBeUndefined();
    expect(CONFIG_VARIABLES.find((v) => v.key === 'httpToken')?.flag).toBeUndefined();
  });
});

describe('PITWALL_HTTP_TOKEN', () => {
  it('is optional, refused when short without being echoed, and handed to redaction', () => {
    expect(loadConfig({}).httpToken).toBeUndefined();
    const err = configError(() => loadConfig({ PITWALL_HTTP_TOKEN: 'short-tok' }));
    expect(err.message).toContain('PITWALL_HTTP_TOKEN');
    expect(err.message).not.toContain('short-tok');
    const token = 'a-token-of-sixteen-or-more';
    expect(configSecrets(loadConfig({ PITWALL_HTTP_TOKEN: token }))).toEqual([token]);
  });
});
