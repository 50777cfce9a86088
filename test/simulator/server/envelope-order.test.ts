import { describe, expect, it } from 'vitest';

import { endpoint } from '../../../src/endpoints/registry.js';
import { API_PATHS } from '../../../src/simulator/world/render/router.js';

import { apiUrl, sampleIds, startTestSimulator } from './helpers.js';

const POINTS_HEADER = ['ClassId', 'ClassName', 'ClassNameOverride', 'PointsAsOf'];
const envelopeKeys = (arrayKey: string, header: string[]) =>
  ['RequestValid', 'ItemsReturned', ...header, arrayKey, 'RequestCached', 'RequestCachedTicks'];

describe('the envelope of every v2 endpoint', () => {
  it('is RequestValid, ItemsReturned, header, the array, RequestCached, RequestCachedTicks, in order', async () => {
    const sim = await startTestSimulator({ quirks: { doubleComma: 0 } });
    const { eventId, scheduleId, classId } = await sampleIds(sim);
    const endpoints: [string, Record<string, number>, string, string[]?][] = [
      ['/v2/schedules/', {}, 'Schedules'],
      ['/v2/schedules/years/', {}, endpoint('schedule_years').arrayKey],
      ['/v2/schedules/events/', { ScheduleId: scheduleId }, 'ScheduleEvents'],
      ['/v2/schedules/events/', { EventId: eventId }, 'ScheduleEvents'],
      ['/v2/schedules/results/', { EventId: eventId }, 'Classes'],
      ['/v2/schedules/lineups/', { EventId: eventId }, endpoint('lineups').arrayKey],
      ['/v2/schedules/results/feed/', {}, endpoint('results_feed').arrayKey],
      ['/v2/schedules/driverStats/', {}, endpoint('driver_stats').arrayKey],
      ['/v2/schedules/driverPasses/', { EventId: eventId }, endpoint('driver_passes').arrayKey],
      ['/v2/schedules/entryList/', { EventId: eventId }, endpoint('entry_list').arrayKey],
      ['/v2/points/schedules/', {}, endpoint('point_schedules').arrayKey],
      ['/v2/points/years/', {}, endpoint('point_years').arrayKey],
      ['/v2/points/', { ScheduleId: scheduleId, ClassId: classId }, 'Points', POINTS_HEADER],
      ['/v2/points/classes/', { ScheduleId: scheduleId }, endpoint('point_classes').arrayKey],
    ];
    expect(new Set(endpoints.map(([path]) => path)), 'every route of src/simulator/world/render/router.ts is checked here').toEqual(new Set(API_PATHS));
    for (const [path, params, arrayKey, header = []] of endpoints) {
      const res = await fetch(apiUrl(sim, path, params));
      const text = await res.text();
      const body = JSON.parse(text) as Record<string, unknown>;
      const where = `${path} ${JSON.stringify(params)}`;
      expect(res.status, where).toBe(200);
      expect(res.headers.get('content-type'), where).toBe('application/json; charset=utf-8');
      expect(Object.keys(body), where).toEqual(envelopeKeys(arrayKey, header));
      expect(body.RequestValid, where).toBe(1);
      expect(body.ItemsReturned, where).toBe((body[arrayKey] as unknown[]).length);
      expect(body.RequestCached, where).toBe(0);
      // A bare integer of 18 digits, not a string and not a rounded float.
      expect(text, where).toMatch(/,"RequestCachedTicks":\d{18}\}$/);
    }
  });
});
