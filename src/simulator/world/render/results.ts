
import type { WireOf } from '../../../endpoints/declare.js';
import type { resultClass, resultRow } from '../../../endpoints/results.js';
import { FLAG, at, displayName, item, raceName, racesOf, rowsOf } from '../model.js';
import { TAG } from '../rng.js';
import type { RenderOutcome } from '../types.js';

import { eventScope } from './event-scope.js';
import type { Params } from './params.js';
import { ID, type Wire, missing, ok } from './wire.js';

/**
 * GET /v2/schedules/results/?EventId= → Classes[].Races[].Results[], heats then the feature,
 * rows in the order the upstream lists them. Filters: ClassId, DriverId (rows of that driver;
 * races and classes left empty by it are dropped), DriverCount (first n rows per race) and
 * RaceCount (first n races per class). RaceCount applies only when given: the SDK's setter
 * defaults to 5, but a caller that sends nothing (as the known production client does) gets
 * every race, or a five-heat class would silently lose its feature.
 */

type ResultClassWire = WireOf<typeof resultClass>;
type ResultRowWire = WireOf<typeof resultRow>;
const KEY = 'Classes';

export function renderResultRow(wire: Wire, row: number): ResultRowWire {
  const { model } = wire.ctx;
  const flags = at(model.rows.flags, row);
  const driver = item(model.drivers, at(model.rows.driver, row));
  return {
    ResultPlace: wire.rowCount(TAG.quirkPlace, row, at(model.rows.finish, row)),
    ResultStart: wire.rowCount(TAG.quirkStart, row, at(model.rows.start, row)),
    ResultCarNum: item(model.carNumbers, at(model.rows.car, row)),
    ResultDNF: wire.flag(row, FLAG.dnf, (flags & FLAG.dnf) !== 0),
    ResultDNS: wire.flag(row, FLAG.dns, (flags & FLAG.dns) !== 0),
    ResultDQ: wire.flag(row, FLAG.dq, (flags & FLAG.dq) !== 0),
    Driver: wire.driver(driver),
    DriverName: displayName(driver),
  };
}

export function renderResults(wire: Wire, params: Params): RenderOutcome {
  const { ctx } = wire;
  const { model } = ctx;
  const scope = eventScope(ctx, params, true);
  if (scope === 'missing') return missing(KEY, 'EventId is required');
  const raceCount = params.positive('RaceCount');
  const driverCount = params.positive('DriverCount');
  const driverId = params.positive('DriverId');
  const driver = driverId === undefined ? undefined : (model.driverById.get(driverId) ?? -1);

  const items: ResultClassWire[] = [];
  for (const ec of scope) {
    const klass = item(model.classes, at(model.eventClasses.cls, ec));
    const races = racesOf(model, ec).slice(0, raceCount);
    const rendered = races.map((race) => {
      let rows = rowsOf(model, race);
      if (driver !== undefined) rows = rows.filter((row) => at(model.rows.driver, row) === driver);
      return {
        RaceName: raceName(model, race),
        RaceLaps: at(model.races.laps, race),
        Results: wire.twice(rows.slice(0, driverCount), (row) => wire.rowTwice(row, 0)).map((row) => renderResultRow(wire, row)),
      };
    });
    const kept = driver === undefined ? rendered : rendered.filter((r) => r.Results.length > 0);
    if (kept.length === 0 && driver !== undefined) continue;
    items.push({ ClassId: wire.id(ID.class, klass.id), ClassName: klass.name, Races: kept });
  }
  return ok(KEY, items);
}
