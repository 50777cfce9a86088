import { carNumber, id, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/entryList/?EventId= → `Classes[].Entries[]`. ASSUMED (api-reference §5). */
const entry = level({
  path: 'Classes[].Entries[]',
  table: 'entry_list',
  context: ['event_id', 'class_id'],
  columns: { car_number: field('CarNum', carNumber) },
  driver: 'required',
});

export const entryClass = level({
  path: 'Classes[]',
  table: 'classes',
  keys: { class_id: field('ClassId', id) },
  className: field('ClassName', optText),
  child: { list: 'Entries', level: entry },
});

export const entryList = declareEndpoint(
  {
    name: 'entry_list',
    path: '/v2/schedules/entryList/',
    parent: 'events',
    request: { EventId: { seed: 'eventId', column: 'event_id' } },
    list: { key: 'Classes', level: entryClass },
    scopes: [{ table: 'entry_list', where: { event_id: 'EventId' } }],
  },
);
