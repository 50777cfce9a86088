import { carNumber, id, optInt, optText } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/** GET /v2/schedules/driverPasses/?EventId= → `DriverPasses[]`: one item per driver and class. ASSUMED (api-reference §5). */
export const driverPass = level({
  path: 'DriverPasses[]',
  table: 'driver_passes',
  keys: { event_id: field('EventId', id), class_id: field('ClassId', id) },
  className: field('ClassName', optText),
  columns: { car_number: field('CarNum', carNumber), races: field('Races', optInt), cars_passed: field('CarsPassed', optInt) },
  driver: 'required',
});

export const driverPasses = declareEndpoint(
  {
    name: 'driver_passes',
    path: '/v2/schedules/driverPasses/',
    parent: 'events',
    request: { EventId: { seed: 'eventId' } },
    list: { key: 'DriverPasses', level: driverPass },
    scopes: [{ table: 'driver_passes', where: { event_id: 'EventId' } }],
    live: true,
  },
);
