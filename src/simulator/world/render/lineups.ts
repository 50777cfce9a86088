
import type { WireOf } from '../../../endpoints/declare.js';
import { lineups, type lineupClass } from '../../../endpoints/lineups.js';
import { at, item, raceName, racesOf, rowsOf } from '../model.js';
import { TAG } from '../rng.js';
import type { RenderOutcome } from '../types.js';

import { eventScope } from './event-scope.js';
import type { Params } from './params.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * GET /v2/schedules/lineups/?EventId=[&ClassId=] → Classes[].Races[].Lineup[]: each race's
 * starting order, read from the results' start positions, so the two always agree. Races are
 * numbered as in results. Events that have not run have no lineups yet.
 */

type LineupClassWire = WireOf<typeof lineupClass>;
const LINEUPS_KEY = lineups.arrayKey;

export function renderLineups(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const { model } = ctx;
  const scope = eventScope(ctx, params, true);
  if (scope === 'missing') return missing(LINEUPS_KEY, 'EventId is required');
  const items: LineupClassWire[] = scope.map((ec) => {
    const klass = item(model.classes, at(model.eventClasses.cls, ec));
    return {
      ClassId: wire.id(ID.class, klass.id),
      ClassName: klass.name,
      Races: racesOf(model, ec).map((race) => ({
        RaceName: raceName(model, race),
        Lineup: wire
          .twice(
            rowsOf(model, race).sort((a, b) => at(model.rows.start, a) - at(model.rows.start, b)),
            (row) => wire.rowTwice(row, 1),
          )
          .map((row) => ({
            StartPosition: wire.rowCount(TAG.quirkStartPosition, row, at(model.rows.start, row)),
            CarNum: item(model.carNumbers, at(model.rows.car, row)),
            Driver: wire.driver(item(model.drivers, at(model.rows.driver, row))),
          })),
      })),
    };
  });
  return ok(LINEUPS_KEY, items);
}
