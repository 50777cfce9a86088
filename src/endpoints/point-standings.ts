import { carNumber, id, optDecimal, optInt, optText, optUsDateTime } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/points/ → `Points[]` (client code). PointTotal is a string that may hold decimals. */
export const pointsRow = level({
  path: 'Points[]',
  table: 'point_standings',
  context: ['schedule_id', 'class_id'],
  columns: {
    position: field('Position', optInt),
    car_number: field('CarNum', carNumber),
    point_total: field('PointTotal', optDecimal),
    wins: field('Wins', optInt),
    top5: field('Top5', optInt),
    top10: field('Top10', optInt),
    features: field('Features', optInt),
  },
  driver: 'required',
});

/**
 * GET /v2/points/ → the fields beside `Points[]` (client code). PointsAsOf goes into every
 * standings row; the class is the request's, so the envelope's own class fields fill nothing.
 */
export const pointsHeader = level({
  path: '',
  table: 'point_standings',
  context: ['schedule_id', 'class_id'],
  columns: { points_as_of: field('PointsAsOf', optUsDateTime) },
  known: { class_id: field('ClassId', id.optional()), class_name: field('ClassName', optText), class_name_override: field('ClassNameOverride', optText) },
});

export const pointStandings = declareEndpoint(
  {
    name: 'point_standings',
    path: '/v2/points/',
    parent: 'point_classes',
    request: { ScheduleId: { seed: 'scheduleId', column: 'schedule_id' }, ClassId: { seed: 'classId', column: 'class_id' } },
    list: { key: 'Points', level: pointsRow },
    envelope: pointsHeader,
    scopes: [{ table: 'point_standings', where: { schedule_id: 'ScheduleId', class_id: 'ClassId' } }],
  },
);
