
import type { WireOf } from '../../../endpoints/declare.js';
import { entryList, type entryClass } from '../../../endpoints/entry-list.js';
import { entriesOf } from '../derive/participants.js';
import { at, item } from '../model.js';
import type { RenderOutcome } from '../types.js';

import { eventScope } from './event-scope.js';
import type { Params } from './params.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * GET /v2/schedules/entryList/?EventId=[&ClassId=] → Classes[].Entries[], by car number. For
 * an event that has run it is exactly who raced; for a future one, the pre-entries (the same
 * drivers, since the world already knows who will show up).
 */

type EntryClassWire = WireOf<typeof entryClass>;
const ENTRY_LIST_KEY = entryList.arrayKey;

export function renderEntryList(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const { model } = ctx;
  const scope = eventScope(ctx, params, false);
  if (scope === 'missing') return missing(ENTRY_LIST_KEY, 'EventId is required');
  const eventId = params.positive('EventId') ?? 0;
  const items: EntryClassWire[] = scope.map((ec) => {
    const klass = item(model.classes, at(model.eventClasses.cls, ec));
    return {
      ClassId: wire.id(ID.class, klass.id),
      ClassName: klass.name,
      Entries: wire.twice(entriesOf(ctx, ec), (entry) => wire.entryTwice(eventId, klass.id, item(model.drivers, entry.driver).id)).map((entry) => ({
        CarNum: item(model.carNumbers, entry.car),
        Driver: wire.driver(item(model.drivers, entry.driver)),
      })),
    };
  });
  return ok(ENTRY_LIST_KEY, items);
}
