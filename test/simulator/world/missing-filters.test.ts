import { describe, expect, it } from 'vitest';

import { NO_QUIRKS } from '../../../src/simulator/world/types.js';

import { sharedWorld } from './helpers.js';

const render = (path: string, query = '') => sharedWorld('tiny').render(path, new URLSearchParams(query), NO_QUIRKS);

describe('requests without the filters an endpoint needs', () => {
  it.each([
    ['/v2/schedules/events/', '', 'ScheduleEvents'],
    ['/v2/schedules/events/', 'StartDate=4/1/2026', 'ScheduleEvents'],
    ['/v2/schedules/events/', 'FutureCount=3', 'ScheduleEvents'],
    ['/v2/schedules/results/', 'ClassId=1000', 'Classes'],
    ['/v2/schedules/results/', 'EventId=abc', 'Classes'],
    ['/v2/schedules/lineups/', '', 'Classes'],
    ['/v2/schedules/entryList/', 'EventId=0', 'Classes'],
    ['/v2/schedules/driverPasses/', 'ClassId=1000', 'DriverPasses'],
    ['/v2/points/', 'ScheduleId=5503', 'Points'],
    ['/v2/points/', 'ClassId=1000', 'Points'],
    ['/v2/points/classes/', '', 'Classes'],
  ])('%s?%s is a missing filter under %s', (path, query, arrayKey) => {
    expect(render(path, query)).toMatchObject({ kind: 'missing-filter', arrayKey, reason: expect.any(String) });
  });

  it.each([
    ['/v2/schedules/events/', 'EventYear=2026'],
    ['/v2/schedules/events/', 'StartDate=4/1/2026&EndDate=5/1/2026'],
    ['/v2/schedules/events/', 'StartDate=4/1/2026&FutureCount=2'],
    ['/v2/schedules/events/', 'PastCount=2'],
    ['/v2/schedules/driverPasses/', 'DriverId=10001'],
    ['/v2/schedules/driverPasses/', 'ScheduleId=5503'],
    ['/v2/schedules/', ''],
    ['/v2/schedules/results/feed/', ''],
    ['/v2/schedules/driverStats/', ''],
    ['/v2/points/years/', ''],
  ])('%s?%s is answered', (path, query) => {
    const outcome = render(path, query);
    expect(outcome.kind).toBe('ok');
    expect(outcome.kind === 'ok' && outcome.items.length).toBeGreaterThan(0);
  });

  it.each(['/v2/points', '/v2/schedules', '/v2/drivers/', '/v2/schedules/results/feed', '/', '/v2/Points/'])(
    '%s is not found',
    (path) => expect(render(path, 'ScheduleId=5503&ClassId=1000')).toEqual({ kind: 'not-found' }),
  );
});
