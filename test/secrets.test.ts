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
    expect(redact('abc', ['', 'b'])).toBe('a[redacted]c');
  });
});

describe('redactError', () => {
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
