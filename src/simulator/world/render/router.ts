import type { WorldContext } from '../context.js';
import type { Quirks, RenderOutcome } from '../types.js';

import { renderDriverPasses } from './driver-passes.js';
import { renderDriverStats } from './driver-stats.js';
import { renderEntryList } from './entry-list.js';
import { renderEvents } from './events.js';
import { renderFeed } from './feed.js';
import { renderLineups } from './lineups.js';
import { Params } from './params.js';
import { renderPointClasses, renderPointSchedules, renderPointYears, renderPoints } from './points.js';
import { renderResults } from './results.js';
import { renderScheduleYears, renderSchedules } from './schedules.js';
import { Wire } from './wire.js';

/**
 * The thirteen paths of the fourteen endpoints (the single event shares /v2/schedules/events/,
 * selected by EventId), exactly as the SDK writes them: the trailing slash is part of the path,
 * so `/v2/points` is not found. Anything else is not-found.
 */
const ROUTES: Record<string, (wire: Wire, params: Params) => RenderOutcome> = {
  '/v2/schedules/': renderSchedules,
  '/v2/schedules/years/': renderScheduleYears,
  '/v2/schedules/events/': renderEvents,
  '/v2/schedules/results/': renderResults,
  '/v2/schedules/lineups/': renderLineups,
  '/v2/schedules/results/feed/': renderFeed,
  '/v2/schedules/driverStats/': renderDriverStats,
  '/v2/schedules/driverPasses/': renderDriverPasses,
  '/v2/schedules/entryList/': renderEntryList,
  '/v2/points/schedules/': renderPointSchedules,
  '/v2/points/years/': renderPointYears,
  '/v2/points/': renderPoints,
  '/v2/points/classes/': renderPointClasses,
};

export const API_PATHS: readonly string[] = Object.keys(ROUTES);

export function render(ctx: WorldContext, path: string, query: URLSearchParams, quirks: Quirks): RenderOutcome {
  const route = Object.hasOwn(ROUTES, path) ? ROUTES[path] : undefined;
  return route ? route(new Wire(ctx, quirks), new Params(query)) : { kind: 'not-found' };
}
