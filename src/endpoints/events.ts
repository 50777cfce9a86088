import { id, optText, optUsDateTime } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/events/ → `ScheduleEvents[].Classes[]` (client code). */
const eventClass = level({
  path: 'ScheduleEvents[].Classes[]',
  table: 'event_classes',
  keys: { class_id: field('ClassId', id) },
  context: ['event_id'],
  className: field('ClassName', optText),
  columns: { class_name_override: field('ClassNameOverride', optText) },
});

/**
 * GET /v2/schedules/events/?ScheduleId= → `ScheduleEvents[]` (documentation sample and client
 * code). An event that counts toward two schedules arrives in both responses and is one
 * `events` row; each response links it to its schedule in `schedule_events`.
 */
export const scheduleEvent = level({
  path: 'ScheduleEvents[]',
  table: 'events',
  keys: { event_id: field('EventId', id) },
  columns: {
    event_date: field('EventDate', optUsDateTime),
    event_name: field('EventName', optText),
    event_description: field('EventDescription', optText),
  },
  link: 'schedule_events',
  seed: (k) => ({ eventId: Number(k.event_id) }),
  child: { list: 'Classes', level: eventClass },
});

export const events = declareEndpoint(
  {
    name: 'events',
    path: '/v2/schedules/events/',
    parent: 'schedules',
    request: { ScheduleId: { seed: 'scheduleId', column: 'schedule_id' } },
    list: { key: 'ScheduleEvents', level: scheduleEvent },
    scopes: [
      { table: 'schedule_events', where: { schedule_id: 'ScheduleId' } },
      { table: 'event_classes', seen: 'event_id' },
    ],
    cancelsEvents: true,
  },
);
