import { id, optInt, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/?ScheduleYear= → `Schedules[]` (specification). */
export const scheduleItem = level({
  path: 'Schedules[]',
  table: 'schedules',
  keys: { schedule_id: field('ScheduleId', id) },
  columns: {
    schedule_name: field('ScheduleName', optText),
    schedule_desc: field('ScheduleDesc', optText),
    schedule_year: field('ScheduleYear', optInt),
    event_count: field('EventCount', optInt),
  },
  seed: (k) => ({ scheduleId: Number(k.schedule_id) }),
});

export const schedules = declareEndpoint(
  {
    name: 'schedules',
    path: '/v2/schedules/',
    parent: 'schedule_years',
    request: { ScheduleYear: { seed: 'year' } },
    list: { key: 'Schedules', level: scheduleItem },
    scopes: [{ table: 'schedules', where: { schedule_year: 'ScheduleYear' } }],
  },
);
