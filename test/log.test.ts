import { Writable } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { createLogger, withContext } from '../src/log.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
  return { lines, destination, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('createLogger', () => {
  it('writes JSON lines at the configured level', () => {
    const { destination, records } = capture();
    const logger = createLogger({ level: 'warn', destination });
    logger.info('hidden');
    logger.warn({ endpoint: 'points' }, 'shown');
    expect(records()).toMatchObject([{ level: 40, msg: 'shown', endpoint: 'points' }]);
  });

  it('stamps each JSON line with an ISO 8601 time, not epoch milliseconds', () => {
    const { destination, records } = capture();
    const before = new Date().toISOString();
    createLogger({ destination }).info('m');
    const { time } = records()[0]!;
    expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(String(time) >= before).toBe(true);
  });

  it('censors fields named key, apiKey or password at any shallow depth', () => {
    const { destination, records } = capture();
    createLogger({ destination }).info({ key: 'a', db: { password: 'b' }, req: { q: { apiKey: 'c' } } }, 'm');
    expect(records()[0]).toMatchObject({ key: '[redacted]', db: { password: '[redacted]' }, req: { q: { apiKey: '[redacted]' } } });
  });

  it('scrubs configured secrets from messages, bindings, nested values and errors', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ destination, secrets: ['SECRET-KEY-123'] });
    const child = logger.child({ url: '/v2/?key=SECRET-KEY-123' });
    child.error({ err: new Error('boom SECRET-KEY-123'), deep: [{ x: 'SECRET-KEY-123' }] }, 'at SECRET-KEY-123');
    expect(lines.join('')).not.toContain('SECRET-KEY-123');
    expect(lines.join('')).toContain('[redacted]');
  });

  it('gives child loggers runId, job and endpoint fields, leaving out unset ones', () => {
    const { destination, records } = capture();
    withContext(createLogger({ destination }), { runId: '7', job: 'live', endpoint: undefined }).info('x');
    const [record] = records();
    expect(record).toMatchObject({ runId: '7', job: 'live' });
    expect(record).not.toHaveProperty('endpoint');
  });
});
