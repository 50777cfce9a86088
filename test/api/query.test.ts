import { describe, expect, it } from 'vitest';

import { buildUrl, canonicalQuery } from '../../src/api/query.js';

describe('canonicalQuery', () => {
  it('sorts names so equal parameter sets give equal strings', () => {
    const a = canonicalQuery({ ScheduleId: 5508, EventYear: 2016, IncludeClass: true });
    const b = canonicalQuery({ IncludeClass: true, ScheduleId: 5508, EventYear: 2016 });
    expect(a).toBe('EventYear=2016&IncludeClass=true&ScheduleId=5508');
    expect(b).toBe(a);
  });

  it('drops undefined values and the key, in any letter case', () => {
    expect(canonicalQuery({ key: 'k1', KEY: 'k2', Key: 'k3', ClassId: undefined, EventId: 2 })).toBe('EventId=2');
  });

  it('URL-encodes names and values', () => {
    expect(canonicalQuery({ StartDate: '8/21/2015', TagType: 'a b&c=d' })).toBe(
      'StartDate=8%2F21%2F2015&TagType=a%20b%26c%3Dd',
    );
  });

  it('refuses a number that has no query form', () => {
    expect(() => canonicalQuery({ ScheduleId: Number.NaN })).toThrow(/ScheduleId/);
  });
});

describe('buildUrl', () => {
  it('joins base and path with one slash and appends the encoded key last', () => {
    const url = buildUrl('http://127.0.0.1:9/', '/v2/schedules/', { ScheduleYear: 2024 }, 'k&y');
    expect(url).toBe('http://127.0.0.1:9/v2/schedules/?ScheduleYear=2024&key=k%26y');
  });

  it('without a key gives the URL pitwall shows in logs and errors', () => {
    expect(buildUrl('https://api.myracepass.com', 'v2/points/', { key: 'secret' })).toBe(
      'https://api.myracepass.com/v2/points/',
    );
  });
});
