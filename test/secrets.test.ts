import { inspect } from 'node:util';

import { describe, expect, it } from 'vitest';

import { maskUrl, redact, redactError } from '../src/secrets.js';

describe('maskUrl', () => {
  it('shows a password as **** and leaves the rest exactly as written', () => {
    expect(maskUrl('postgres://pitwall:s3cr%40t@db:5432/pitwall?sslmode=require')).toBe(
      'postgres://pitwall:****@db:5432/pitwall?sslmode=require',
    );
  });

  it('masks up to the last @ of the authority, and values that do not parse as URLs', () => {
    expect(maskUrl('postgres://u:p@ss@h/db')).toBe('postgres://u:****@h/db');
    expect(maskUrl('u:hunter2@host')).toBe('u:****@host');
  });

  it('leaves URLs without a password unchanged', () => {
    for (const url of ['https://api.myracepass.com', 'postgres://u@h/db', 'http://h/a@b']) {
      expect(maskUrl(url)).toBe(url);
    }
  });
});

describe('redact', () => {
  it('replaces every occurrence, also URL-encoded and JSON-escaped', () => {
    const secret = 'a&b"c';
    const text = `x ${secret} y key=${encodeURIComponent(secret)} ${JSON.stringify(secret)}`;
    expect(redact(text, [secret])).toBe('x [redacted] y key=[redacted] "[redacted]"');
  });

  it('ignores empty secrets', () => {
    expect(redact('abc key=b', ['', 'b'])).toBe('abc key=[redacted]');
  });

  it('replaces a long secret anywhere, even inside a word', () => {
    const secret = 'k3y-0123456789';
    expect(redact(`prefix${secret}suffix and ${secret}`, [secret])).toBe('prefix[redacted]suffix and [redacted]');
  });

  it.each(['x', 'k3y'])('replaces the short secret %j where it stands as a value', (secret) => {
    const cases: Array<[string, string]> = [
      [`GET /v2/schedules/?key=${secret}&EventId=4`, 'GET /v2/schedules/?key=[redacted]&EventId=4'],
      [`GET /v2/schedules/?EventId=4&KEY=${secret}`, 'GET /v2/schedules/?EventId=4&KEY=[redacted]'],
      [`Authorization: Bearer ${secret}`, 'Authorization: Bearer [redacted]'],
      [`{"level":30,"key":"${secret}","msg":"m"}`, '{"level":30,"key":"[redacted]","msg":"m"}'],
      [`{"apiKey": "${secret}"}`, '{"apiKey": "[redacted]"}'],
      [`postgres://pitwall:${secret}@db/pitwall`, 'postgres://pitwall:[redacted]@db/pitwall'],
      [`/login?next=${encodeURIComponent(`/v2/?key=${secret}&a=1`)}`, `/login?next=${encodeURIComponent('/v2/?key=')}[redacted]${encodeURIComponent('&a=1')}`],
    ];
    for (const [text, masked] of cases) expect(redact(text, [secret]), text).toBe(masked);
  });

  it.each(['x', 'k3y', 'e'])('leaves unrelated text alone for the short secret %j', (secret) => {
    for (const text of [
      'database "pitwall_test" does not exist',
      'at Object.<anonymous> (/app/dist/index.js:12:3) xk3y k3yx',
      'key=xyz&other=k3yk3y',
      'password authentication failed for user "pitwall"',
    ]) {
      expect(redact(text, [secret]), text).toBe(text);
    }
  });

  it('keeps the case of a short secret significant', () => {
    expect(redact('key=X key=x', ['x'])).toBe('key=X key=[redacted]');
  });
});

describe('redactError', () => {
  it('returns an error that only mentions the letters of a short secret unchanged', () => {
    const err = new Error('database "x" does not exist; see index.js');
    expect(redactError(err, ['x'])).toBe(err);
  });

  it('returns a clean error unchanged', () => {
    const err = new Error('fine');
    expect(redactError(err, ['k'.repeat(8)])).toBe(err);
  });

  it('copies an error whose message, stack or cause chain holds a secret, keeping name and code', () => {
    const inner = Object.assign(new Error('GET /?key=TOPSECRET'), { code: 'ECONNRESET' });
    const outer = new TypeError('fetch failed', { cause: inner });
    const clean = redactError(outer, ['TOPSECRET']) as Error;
    expect(inspect(clean, { depth: 5 })).not.toContain('TOPSECRET');
    expect(clean.name).toBe('TypeError');
    expect((clean.cause as { code?: string }).code).toBe('ECONNRESET');
  });
});
