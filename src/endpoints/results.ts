import { carNumber, flag, id, optInt, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/results/ → `Classes[].Races[].Results[]` (client code); keyed by position in the lists. */
export const resultRow = level({
  path: 'Classes[].Races[].Results[]',
  table: 'results',
  context: ['event_id', 'class_id', 'race_number'],
  position: 'row_index',
  columns: {
    finish: field('ResultPlace', optInt),
    start: field('ResultStart', optInt),
    car_number: field('ResultCarNum', carNumber),
    dnf: field('ResultDNF', flag),
    dns: field('ResultDNS', flag),
    dq: field('ResultDQ', flag),
    driver_name: field('DriverName', optText),
  },
  driver: 'optional',
  // A driver finishes a race once, in one car, and a car number is carried by one car: together
  // they tell a row from its siblings even when a copy differs in another field (a place
  // corrected between the copies). A row without a driver id or a car number (a driver the
  // upstream does not know) is told only by its whole content, so only an exact copy is dropped.
  identity: ['driver_id', 'car_number'],
});

const resultRace = level({
  path: 'Classes[].Races[]',
  table: 'races',
  context: ['event_id', 'class_id'],
  position: 'race_number',
  columns: { race_name: field('RaceName', optText), race_laps: field('RaceLaps', optInt) },
  child: { list: 'Results', level: resultRow },
});

/** ClassId on results classes is inferred (the events endpoint carries it); pitwall needs it as a key. */
export const resultClass = level({
  path: 'Classes[]',
  table: 'classes',
  keys: { class_id: field('ClassId', id) },
  className: field('ClassName', optText),
  child: { list: 'Races', level: resultRace },
});

export const results = declareEndpoint(
  {
    name: 'results',
    path: '/v2/schedules/results/',
    parent: 'events',
    request: { EventId: { seed: 'eventId', column: 'event_id' } },
    list: { key: 'Classes', level: resultClass },
    scopes: [
      { table: 'races', where: { event_id: 'EventId' } },
      { table: 'results', where: { event_id: 'EventId' } },
    ],
    live: true,
  },
);
