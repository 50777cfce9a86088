import { Collector, list, without } from './collector.js';
import { LEVELS } from './levels.js';
import type { Extracted } from './types.js';

const eventIdOf = (params: Record<string, string>) => Number(params.EventId);

/** GET /v2/schedules/results/?EventId=e → Classes → Races → Results, keyed by position in the lists. */
export function extractResults(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const eventId = eventIdOf(params);
  c.items(items.length);
  for (const rawClass of items) {
    const k = c.parse(LEVELS.resultClass, rawClass, `event ${eventId} results class`);
    if (!k) continue;
    c.klass(k.ClassId, k.ClassName, rawClass);
    list(k.Races).forEach((rawRace, r) => {
      const raceKey = { event_id: eventId, class_id: k.ClassId, race_number: r + 1 };
      const race = c.parse(LEVELS.resultRace, rawRace, `event ${eventId} class ${k.ClassId} race ${r + 1}`, { context: raceKey });
      if (!race) return;
      c.row('races', { ...raceKey, race_name: race.RaceName, race_laps: race.RaceLaps, raw: without(rawRace, 'Results') });
      list(race.Results).forEach((rawRow, i) => {
        const row = c.parse(LEVELS.resultRow, rawRow, `event ${eventId} class ${k.ClassId} race ${r + 1} row ${i + 1}`, {
          context: { ...raceKey, row_index: i + 1 },
        });
        if (!row) return;
        const d = c.driver(row.Driver, (rawRow as Record<string, unknown>).Driver);
        c.row('results', {
          ...raceKey,
          row_index: i + 1,
          driver_id: d?.DriverId ?? null,
          driver_name: row.DriverName,
          finish: row.ResultPlace,
          start: row.ResultStart,
          car_number: row.ResultCarNum,
          dnf: row.ResultDNF,
          dns: row.ResultDNS,
          dq: row.ResultDQ,
          raw: rawRow,
        });
      });
    });
  }
  c.scope({ table: 'races', where: { event_id: [eventId] } });
  c.scope({ table: 'results', where: { event_id: [eventId] } });
  return c.result();
}

/** GET /v2/schedules/lineups/?EventId=e → Classes → Races → Lineup (assumed shape). */
export function extractLineups(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const eventId = eventIdOf(params);
  c.items(items.length);
  for (const rawClass of items) {
    const k = c.parse(LEVELS.lineupClass, rawClass, `event ${eventId} lineup class`);
    if (!k) continue;
    c.klass(k.ClassId, k.ClassName, rawClass);
    list(k.Races).forEach((rawRace, r) => {
      const raceKey = { event_id: eventId, class_id: k.ClassId, race_number: r + 1 };
      const race = c.parse(LEVELS.lineupRace, rawRace, `event ${eventId} class ${k.ClassId} lineup race ${r + 1}`, { context: raceKey });
      if (!race) return;
      for (const rawEntry of list(race.Lineup)) {
        const e = c.parse(LEVELS.lineupEntry, rawEntry, `event ${eventId} class ${k.ClassId} lineup race ${r + 1} entry`, { context: raceKey });
        if (!e) continue;
        const d = c.driver(e.Driver, (rawEntry as Record<string, unknown>).Driver);
        c.row('lineups', {
          event_id: eventId,
          class_id: k.ClassId,
          race_number: r + 1,
          start_position: e.StartPosition,
          race_name: race.RaceName,
          car_number: e.CarNum,
          driver_id: d?.DriverId ?? null,
          raw: rawEntry,
        });
      }
    });
  }
  c.scope({ table: 'lineups', where: { event_id: [eventId] } });
  return c.result();
}

/** GET /v2/schedules/entryList/?EventId=e → Classes → Entries (assumed shape). */
export function extractEntryList(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const eventId = eventIdOf(params);
  c.items(items.length);
  for (const rawClass of items) {
    const k = c.parse(LEVELS.entryClass, rawClass, `event ${eventId} entry class`);
    if (!k) continue;
    c.klass(k.ClassId, k.ClassName, rawClass);
    for (const rawEntry of list(k.Entries)) {
      const e = c.parse(LEVELS.entry, rawEntry, `event ${eventId} class ${k.ClassId} entry`, {
        context: { event_id: eventId, class_id: k.ClassId },
      });
      if (!e) continue;
      const d = c.driver(e.Driver, (rawEntry as Record<string, unknown>).Driver);
      if (d?.DriverId === undefined) {
        c.reject(`event ${eventId} class ${k.ClassId} entry: Driver.0.DriverId: required for an entry-list row`, rawEntry);
        continue;
      }
      c.row('entry_list', { event_id: eventId, class_id: k.ClassId, driver_id: d.DriverId, car_number: e.CarNum, raw: rawEntry });
    }
  }
  c.scope({ table: 'entry_list', where: { event_id: [eventId] } });
  return c.result();
}

/** GET /v2/schedules/driverPasses/?EventId=e → one item per driver and class (assumed shape). */
export function extractDriverPasses(items: unknown[], params: Record<string, string>): Extracted {
  const c = new Collector();
  const eventId = eventIdOf(params);
  c.items(items.length);
  for (const item of items) {
    const p = c.parse(LEVELS.driverPass, item, `event ${eventId} driver passes`);
    if (!p) continue;
    const d = c.driver(p.Driver, (item as Record<string, unknown>).Driver);
    if (d?.DriverId === undefined) {
      c.reject(`event ${eventId} driver passes: Driver.0.DriverId: required for a driver_passes row`, item);
      continue;
    }
    c.klass(p.ClassId, p.ClassName, item);
    c.row('driver_passes', {
      event_id: p.EventId,
      class_id: p.ClassId,
      driver_id: d.DriverId,
      car_number: p.CarNum,
      races: p.Races,
      cars_passed: p.CarsPassed,
      raw: item,
    });
  }
  c.scope({ table: 'driver_passes', where: { event_id: [eventId] } });
  return c.result();
}
