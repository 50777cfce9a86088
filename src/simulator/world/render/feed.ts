
import type { WireOf } from '../../../endpoints/declare.js';
import { resultsFeed, type feedEvent } from '../../../endpoints/results-feed.js';
import { usDateTime } from '../dates.js';
import { FEED_DEFAULT_EVENTS, featureByFinish, feedEvents } from '../derive/feed.js';
import { at, eventClassesOf, featureRace, item, raceName } from '../model.js';
import { TAG } from '../rng.js';
import type { RenderOutcome } from '../types.js';

import type { Params } from './params.js';
import { ID, type Wire, ok } from './wire.js';

/**
 * GET /v2/schedules/results/feed/ → Events[].Classes[].Results[]: the latest EventCount
 * (default 5) events with results, newest first; per event its first ClassCount classes
 * (0 = all) with the feature's top DriverCount finishers (0 = all).
 */

type FeedEventWire = WireOf<typeof feedEvent>;
const FEED_KEY = resultsFeed.arrayKey;

export function renderFeed(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const { model } = ctx;
  const eventCount = params.positive('EventCount') ?? FEED_DEFAULT_EVENTS;
  const classCount = params.positive('ClassCount');
  const driverCount = params.positive('DriverCount');
  const items: FeedEventWire[] = feedEvents(ctx, eventCount).map((e) => {
    const event = item(model.events, e);
    return {
      EventId: wire.id(ID.event, event.id),
      EventDate: usDateTime(event.day, event.minutes),
      EventName: event.name,
      Classes: eventClassesOf(model, e)
        .slice(0, classCount)
        .map((ec) => {
          const klass = item(model.classes, at(model.eventClasses.cls, ec));
          return {
            ClassId: wire.id(ID.class, klass.id),
            ClassName: klass.name,
            RaceName: raceName(model, featureRace(model, ec)),
            Results: featureByFinish(ctx, ec)
              .slice(0, driverCount)
              .map((row) => ({
                ResultPlace: wire.rowCount(TAG.quirkPlace, row, at(model.rows.finish, row)),
                ResultCarNum: item(model.carNumbers, at(model.rows.car, row)),
                Driver: wire.driver(item(model.drivers, at(model.rows.driver, row))),
              })),
          };
        }),
    };
  });
  return ok(FEED_KEY, items);
}
