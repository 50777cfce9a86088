import { id, optInt } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/**
 * GET /v2/schedules/years/ and GET /v2/points/years/ → `Years[]`. ASSUMED: no public source
 * shows these responses (shared/api-reference.md §5); designed in the API's own style.
 */
const yearsOf = (table: 'schedule_years' | 'point_years') =>
  level({
    path: 'Years[]',
    table,
    keys: { year: field('ScheduleYear', id) },
    columns: { schedule_count: field('ScheduleCount', optInt) },
    seed: (k) => ({ year: Number(k.year) }),
  });

export const scheduleYearItem = yearsOf('schedule_years');

export const scheduleYears = declareEndpoint(
  { name: 'schedule_years', path: '/v2/schedules/years/', parent: null, list: { key: 'Years', level: scheduleYearItem }, scopes: [{ table: 'schedule_years' }] },
);

export const pointYears = declareEndpoint(
  { name: 'point_years', path: '/v2/points/years/', parent: null, list: { key: 'Years', level: yearsOf('point_years') }, scopes: [{ table: 'point_years' }] },
);
