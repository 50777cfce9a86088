import { CronExpressionParser } from 'cron-parser';
import { createTask } from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { previousFire } from '../../src/cron/previous-fire.js';

/** node-cron's own next fire after `from`, read with Date faked to `from`. */
function nodeCronNext(expression: string, timezone: string, from: Date): Date | undefined {
  vi.useFakeTimers({ now: from, toFake: ['Date'] });
  try {
    return createTask(expression, () => undefined, { timezone }).getNextRuns(1)[0];
  } finally {
    vi.useRealTimers();
  }
}

afterEach(() => vi.useRealTimers());

describe('previousFire', () => {
  it.each([
    ['*/5 * * * *', 'UTC', '2026-11-23T21:37:42Z', '2026-11-23T21:35:00Z'],
    ['0 * * * *', 'UTC', '2026-11-23T21:00:00Z', '2026-11-23T21:00:00Z'],
    ['0 3 * * *', 'UTC', '2026-11-23T02:59:59Z', '2026-11-22T03:00:00Z'],
    ['0 0 1 1 *', 'UTC', '2026-11-23T21:37:42Z', '2026-01-01T00:00:00Z'],
    ['*/10 * * * * *', 'UTC', '2026-11-23T21:37:42.500Z', '2026-11-23T21:37:40Z'],
    ['0 3 * * *', 'America/Chicago', '2026-11-23T09:00:00Z', '2026-11-23T03:00:00-06:00'],
    ['0 3 * * *', 'America/Chicago', '2026-11-23T08:59:59Z', '2026-11-22T03:00:00-06:00'],
    ['0 0 * * mon-fri', 'UTC', '2026-11-22T12:00:00Z', '2026-11-20T00:00:00Z'],
    ['0 0 L * *', 'UTC', '2026-03-15T00:00:00Z', '2026-02-28T00:00:00Z'],
    ['0 0 * * 1#2', 'UTC', '2026-11-23T00:00:00Z', '2026-11-09T00:00:00Z'],
    ['0 0 29 2 *', 'UTC', '2026-11-23T00:00:00Z', '2024-02-29T00:00:00Z'],
    ['@daily', 'Europe/Berlin', '2026-11-23T12:00:00Z', '2026-11-22T23:00:00Z'],
  ])('%s in %s at %s last fired at %s', (expression, tz, now, expected) => {
    expect(previousFire(expression, tz, new Date(now))?.toISOString()).toBe(new Date(expected).toISOString());
  });

  it('skips a wall time that a spring-forward change leaves out', () => {
    // 2026-03-08 02:30 does not exist in Chicago; the day before's 02:30 is the last fire.
    expect(previousFire('30 2 * * *', 'America/Chicago', new Date('2026-03-08T12:00:00Z'))?.toISOString()).toBe(
      '2026-03-07T08:30:00.000Z',
    );
  });

  it('takes the later instant of a wall time that a fall-back change repeats', () => {
    // 2026-11-01 01:30 happens at 06:30Z (CDT) and again at 07:30Z (CST).
    expect(previousFire('30 1 * * *', 'America/Chicago', new Date('2026-11-01T08:00:00Z'))?.toISOString()).toBe(
      '2026-11-01T07:30:00.000Z',
    );
    expect(previousFire('30 1 * * *', 'America/Chicago', new Date('2026-11-01T07:00:00Z'))?.toISOString()).toBe(
      '2026-11-01T06:30:00.000Z',
    );
  });

  it.each([
    ['*/5 * * * *', 'UTC'],
    ['0 * * * *', 'America/Chicago'],
    ['15 3 * * *', 'Australia/Lord_Howe'],
    ['0 0 * * 0', 'Asia/Kolkata'],
    ['*/7 1-3 * * *', 'Europe/London'],
    ['0 0 1 1 *', 'Pacific/Chatham'],
    ['0 12 L * *', 'UTC'],
    ['0 6 * * 5L', 'America/New_York'],
    ['0 0 * * 1#2', 'Europe/Berlin'],
    ['0 9-17/2 * * mon-fri', 'America/Chicago'],
    ['*/10 * * * * *', 'Australia/Lord_Howe'],
    ['@weekly', 'Asia/Kolkata'],
  ])('agrees with node-cron\'s next fire for %s in %s', (expression, tz) => {
    for (const now of ['2026-03-08T07:59:00Z', '2026-04-05T15:10:11Z', '2026-11-01T06:45:00Z', '2026-12-31T23:59:59Z']) {
      const previous = previousFire(expression, tz, new Date(now));
      expect(previous).not.toBeNull();
      if (!previous) continue;
      // node-cron fires at `previous` when asked just before it, and not again until after `now`.
      expect(nodeCronNext(expression, tz, new Date(previous.getTime() - 1000))?.toISOString()).toBe(previous.toISOString());
      expect(nodeCronNext(expression, tz, previous)!.getTime()).toBeGreaterThan(new Date(now).getTime());
    }
  });
});

describe('previousFire, kept until the next fire', () => {
  /** cron-parser asked afresh, as previousFire did before it kept answers. */
  const fresh = (expression: string, tz: string, now: Date): Date | null => {
    try {
      return CronExpressionParser.parse(expression, { tz, currentDate: new Date(now.getTime() + 1) }).prev().toDate();
    } catch {
      return null;
    }
  };

  // Each around a change of its zone's clock (Chicago springs forward at 08:00Z on 8 March 2026 and
  // falls back at 07:00Z on 1 November; London springs forward at 01:00Z on 29 March).
  it.each([
    ['*/5 * * * *', 'UTC', '2026-03-08T08:00:00Z'],
    ['30 2 * * *', 'America/Chicago', '2026-03-08T08:00:00Z'],
    ['30 1 * * *', 'America/Chicago', '2026-11-01T07:00:00Z'],
    ['0 * * * *', 'Europe/London', '2026-03-29T01:00:00Z'],
    ['*/20 * * * * *', 'UTC', '2026-03-08T08:00:00Z'],
  ])('answers %s in %s as a fresh search does, at every moment around %s, asked in any order', (expression, tz, change) => {
    // 8 hours from 4 hours before the change, every 150 s, each moment asked three times within a
    // second (a kept answer's life): from half a second before a multiple of 150 s to 400 ms after
    // it, so the asks of every second step cross a fire of */5 (and each of */20 s). Forwards, then
    // backwards, so kept answers are read both ways.
    const start = Date.parse(change) - 4 * 3_600_000;
    const moments = Array.from({ length: 192 }, (_, i) => start + i * 150_000 - 500).flatMap((t) => [0, 400, 900].map((d) => new Date(t + d)));
    moments.push(...[...moments].reverse());
    for (const now of moments) expect(previousFire(expression, tz, now)?.toISOString(), now.toISOString()).toBe(fresh(expression, tz, now)?.toISOString());
  });
});
