import { carNumber, id, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/lineups/?EventId= → `Classes[].Races[].Lineup[]`. ASSUMED (api-reference §5). */
const lineupEntry = level({
  path: 'Classes[].Races[].Lineup[]',
  table: 'lineups',
  keys: { start_position: field('StartPosition', id) },
  context: ['event_id', 'class_id', 'race_number'],
  columns: { car_number: field('CarNum', carNumber) },
  driver: 'optional',
});

/** A lineup race has no row of its own: its name goes into each of its lineup rows. */
const lineupRace = level({
  path: 'Classes[].Races[]',
  table: 'lineups',
  context: ['event_id', 'class_id'],
  position: 'race_number',
  columns: { race_name: field('RaceName', optText) },
  child: { list: 'Lineup', level: lineupEntry },
});

export const lineupClass = level({
  path: 'Classes[]',
  table: 'classes',
  keys: { class_id: field('ClassId', id) },
  className: field('ClassName', optText),
  child: { list: 'Races', level: lineupRace },
});

export const lineups = declareEndpoint(
  {
    name: 'lineups',
    path: '/v2/schedules/lineups/',
    parent: 'events',
    request: { EventId: { seed: 'eventId', column: 'event_id' } },
    list: { key: 'Classes', level: lineupClass },
    scopes: [{ table: 'lineups', where: { event_id: 'EventId' } }],
    live: true,
  },
);
