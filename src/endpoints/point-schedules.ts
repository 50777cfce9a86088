import { id, optInt, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/points/schedules/?ScheduleYear= → `Schedules[]`, like /v2/schedules/ with ClassCount. ASSUMED (api-reference §5). */
export const pointSchedule = level({
  path: 'Schedules[]',
  table: 'point_schedules',
  keys: { schedule_id: field('ScheduleId', id) },
  columns: {
    schedule_name: field('ScheduleName', optText),
    schedule_desc: field('ScheduleDesc', optText),
    schedule_year: field('ScheduleYear', optInt),
    class_count: field('ClassCount', optInt),
  },
  seed: (k) => ({ scheduleId: Number(k.schedule_id) }),
});

export const pointSchedules = declareEndpoint(
  {
    name: 'point_schedules',
    path: '/v2/points/schedules/',
    parent: 'point_years',
    request: { ScheduleYear: { seed: 'year' } },
    list: { key: 'Schedules', level: pointSchedule },
    scopes: [{ table: 'point_schedules', where: { schedule_year: 'ScheduleYear' } }],
  },
);
