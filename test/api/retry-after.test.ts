import { describe, expect, it } from 'vitest';

import { parseRetryAfterMs } from '../../src/api/retry-after.js';

const now = new Date('2024-05-11T12:00:00Z');

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
  });

  it('reads an IMF-fixdate as the time left until it', () => {
    expect(parseRetryAfterMs('Sat, 11 May 2024 12:00:10 GMT', now)).toBe(10_000);
  });

  it('reads the obsolete RFC 850 and asctime forms, asctime as GMT', () => {
    expect(parseRetryAfterMs('Saturday, 11-May-24 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('Sat May 11 12:00:07 2024', now)).toBe(7000);
  });

  it('returns null when there is nothing to honour, so the caller backs off itself', () => {
    for (const header of [null, undefined, '', '0', '-1', '1.5', 'soon', 'abc 1']) {
      expect(parseRetryAfterMs(header, now), String(header)).toBeNull();
    }
  });

  it('returns null for a date that is already past', () => {
    expect(parseRetryAfterMs('Sat, 11 May 2024 11:59:00 GMT', now)).toBeNull();
    expect(parseRetryAfterMs('Sat, 11 May 2024 12:00:00 GMT', now)).toBeNull();
  });
});
