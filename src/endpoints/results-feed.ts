import { carNumber, id, optText, optUsDateTime } from '../api/schemas/primitives.js';

import { field, level } from './declare.js';
import { declareEndpoint } from './endpoint.js';

/**
 * GET /v2/schedules/results/feed/ → `Events[].Classes[].Results[]`: the latest events with
 * results, and for each class the top finishers of its last race (the feature). ASSUMED
 * (api-reference §5). Event and class fields go into each of their result rows.
 */
const feedResult = level({
  path: 'Events[].Classes[].Results[]',
  table: 'results_feed',
  keys: { finish: field('ResultPlace', id) },
  context: ['event_id', 'class_id'],
  columns: { car_number: field('ResultCarNum', carNumber) },
  driver: 'optional',
});

const feedClass = level({
  path: 'Events[].Classes[]',
  table: 'results_feed',
  keys: { class_id: field('ClassId', id) },
  context: ['event_id'],
  className: field('ClassName', optText),
  columns: { race_name: field('RaceName', optText) },
  child: { list: 'Results', level: feedResult },
});

export const feedEvent = level({
  path: 'Events[]',
  table: 'results_feed',
  keys: { event_id: field('EventId', id) },
  columns: { event_date: field('EventDate', optUsDateTime), event_name: field('EventName', optText) },
  // The live job follows each event the feed names, to refresh that event.
  seed: (k) => ({ eventId: Number(k.event_id) }),
  child: { list: 'Classes', level: feedClass },
});

/** The table mirrors the feed as it stands: rows that drop off the feed get `_deleted_at`. */
export const resultsFeed = declareEndpoint(
  {
    name: 'results_feed',
    path: '/v2/schedules/results/feed/',
    parent: null,
    list: { key: 'Events', level: feedEvent },
    scopes: [{ table: 'results_feed' }],
  },
);
