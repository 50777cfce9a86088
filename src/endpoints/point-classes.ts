import { id, optText, optUsDateTime } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/points/classes/?ScheduleId= → `Classes[]`: the classes with standings in that schedule. ASSUMED (api-reference §5). */
export const pointClass = level({
  path: 'Classes[]',
  table: 'point_classes',
  keys: { class_id: field('ClassId', id) },
  context: ['schedule_id'],
  className: field('ClassName', optText),
  columns: { class_name_override: field('ClassNameOverride', optText), points_as_of: field('PointsAsOf', optUsDateTime) },
  seed: (k) => ({ scheduleId: Number(k.schedule_id), classId: Number(k.class_id) }),
});

export const pointClasses = declareEndpoint(
  {
    name: 'point_classes',
    path: '/v2/points/classes/',
    parent: 'point_schedules',
    request: { ScheduleId: { seed: 'scheduleId', column: 'schedule_id' } },
    list: { key: 'Classes', level: pointClass },
    scopes: [{ table: 'point_classes', where: { schedule_id: 'ScheduleId' } }],
  },
);
