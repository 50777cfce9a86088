import { type WorldContext, isLive, isScored } from '../context.js';
import { entriesOf, passesOf } from '../derive/participants.js';
import { FLAG, at, displayName, eventClassesOf, item, raceName, racesOf } from '../model.js';
import type { Truth, TruthRow } from '../types.js';

/**
 * Per-event tables: races, results and lineups of events that have run, entry lists of every
 * live event (pre-entries for future ones), and cars passed. Rows are written as literals with
 * every field named: at a million rows, spreading a shared key object costs seconds.
 */
export function raceTruth(ctx: WorldContext): Pick<Truth, 'races' | 'results' | 'lineups' | 'entry_list' | 'driver_passes'> {
  const { model } = ctx;
  const { rows } = model;
  const races: TruthRow[] = [];
  const results: TruthRow[] = [];
  const lineups: TruthRow[] = [];
  const entryList: TruthRow[] = [];
  const driverPasses: TruthRow[] = [];
  const car = (index: number) => item(model.carNumbers, index);
  const driverId = (d: number) => item(model.drivers, d).id;
  const names = model.drivers.map(displayName);

  model.events.forEach((event, e) => {
    if (!isLive(ctx, e)) return;
    const scored = isScored(ctx, e);
    const event_id = event.id;
    for (const ec of eventClassesOf(ctx.model, e)) {
      const class_id = item(model.classes, at(model.eventClasses.cls, ec)).id;
      for (const entry of entriesOf(ctx, ec)) {
        entryList.push({ event_id, class_id, driver_id: driverId(entry.driver), car_number: car(entry.car) });
      }
      if (!scored) continue;
      for (const p of passesOf(ctx, ec)) {
        const { races: raced, carsPassed: cars_passed } = p;
        driverPasses.push({ event_id, class_id, driver_id: driverId(p.driver), car_number: car(p.car), races: raced, cars_passed });
      }
      racesOf(ctx.model, ec).forEach((race, r) => {
        const race_number = r + 1;
        const race_name = raceName(model, race);
        races.push({ event_id, class_id, race_number, race_name, race_laps: at(model.races.laps, race) });
        const first = at(model.races.rowStart, race);
        const count = at(model.races.rowCount, race);
        for (let row = first; row < first + count; row++) {
          const d = at(rows.driver, row);
          const flags = at(rows.flags, row);
          const start = at(rows.start, row);
          const car_number = car(at(rows.car, row));
          const driver_id = driverId(d);
          results.push({
            event_id,
            class_id,
            race_number,
            row_index: row - first + 1,
            driver_id,
            driver_name: item(names, d),
            finish: at(rows.finish, row),
            start,
            car_number,
            dnf: (flags & FLAG.dnf) !== 0,
            dns: (flags & FLAG.dns) !== 0,
            dq: (flags & FLAG.dq) !== 0,
          });
          lineups.push({ event_id, class_id, race_number, start_position: start, race_name, car_number, driver_id });
        }
      });
    }
  });
  return { races, results, lineups, entry_list: entryList, driver_passes: driverPasses };
}
