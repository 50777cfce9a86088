import { id, optDecimal, optInt, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/driverStats/ → `DriverStats[]`: one item per driver, class and season. ASSUMED (api-reference §5). */
export const driverStat = level({
  path: 'DriverStats[]',
  table: 'driver_stats',
  keys: { year: field('ScheduleYear', id), class_id: field('ClassId', id) },
  className: field('ClassName', optText),
  columns: {
    starts: field('Starts', optInt),
    wins: field('Wins', optInt),
    top5: field('Top5', optInt),
    top10: field('Top10', optInt),
    avg_start: field('AvgStart', optDecimal),
    avg_finish: field('AvgFinish', optDecimal),
  },
  driver: 'required',
});

export const driverStats = declareEndpoint(
  { name: 'driver_stats', path: '/v2/schedules/driverStats/', parent: null, list: { key: 'DriverStats', level: driverStat }, scopes: [{ table: 'driver_stats' }] },
);
