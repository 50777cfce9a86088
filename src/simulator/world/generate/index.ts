import { dayFromIso, yearOf } from '../dates.js';
import { type EventRec, type WorldModel, internCarNumber, item } from '../model.js';
import { PURSES } from '../names.js';
import { type Rng, TAG, createRng, hash01, hash32 } from '../rng.js';
import { SCALES } from '../scales.js';
import { DEFAULT_QUIRKS, type WorldOptions } from '../types.js';

import { generateCalendar } from './calendar.js';
import { heatCount, runEventClass } from './races.js';
import { generateRoster } from './roster.js';
import { withTouringSeries } from './series.js';

/**
 * Builds the whole world from (seed, scale, today's year). Every event class draws from its
 * own generator seeded by (seed, event id, class id), so one event's racing never depends on
 * how many were generated before it, nor on which site's world holds it: a series site's tour
 * night (series.ts) races exactly as at its track's site, cars and results alike. Results are
 * generated for future events too and simply not shown until their date passes: advancing the
 * clock then reveals what was always going to happen, and the entry list of a future event
 * already names the drivers who will race.
 */

/** The today of a world made in code without one (tests, benchmarks); the commands take the machine's (../today.ts). */
export const DEFAULT_TODAY = '2026-07-15';

/** Weighted sampling without replacement (Efraimidis-Spirakis keys), `count` of `items`. */
function weightedSample(items: readonly number[], count: number, weight: (x: number) => number, rng: Rng): number[] {
  return items
    .map((x) => ({ x, key: Math.pow(rng.next(), 1 / weight(x)) }))
    .sort((a, b) => b.key - a.key)
    .slice(0, count)
    .map((k) => k.x);
}

/**
 * The quirk key of a row in a world of one site of several (see RowTable.quirkKey): a hash of
 * the row's upstream identity, event id, class id, race number and row index. Class ids stay
 * below 2^16; race numbers and row indexes are bytes in the model.
 */
function rowQuirkKey(seed: number, eventId: number, classId: number, raceNumber: number, rowIndex: number): number {
  return hash32(seed, TAG.rowQuirks, eventId, (classId << 16) | (raceNumber << 8) | rowIndex);
}

interface PlannedClass {
  event: number;
  cls: number;
  override: string;
  field: number[];
}

export function generateWorld(options: WorldOptions): WorldModel {
  const { seed, scale } = options;
  const params = SCALES[scale];
  const lastYear = yearOf(dayFromIso(options.today ?? DEFAULT_TODAY));
  const years = Array.from({ length: params.years }, (_, i) => lastYear - params.years + 1 + i);
  // Names are part of the world, fixed at generation, while quirks arrive with each request:
  // the share of accented names is therefore the default one, whatever a request's quirks say.
  // Sites share the roster (a driver races at several tracks); each has a calendar of its own.
  const roster = generateRoster(seed, params, years.length, DEFAULT_QUIRKS.unicodeNames);
  const site = options.site ?? 0;
  const calendarOf = (n: number) => generateCalendar(n === 0 ? seed : hash32(seed, TAG.site, n), params, years, n);
  const sites = options.sites ?? 1;
  if (sites > 1 && !(site >= 1 && site <= sites)) throw new Error(`site must be 1..${sites} of ${sites} sites, got ${site}`);
  const tracks = Array.from({ length: sites - 1 }, (_, i) => i + 1);
  const calendar =
    sites > 1 && site === sites ? withTouringSeries(calendarOf(site), tracks.map(calendarOf), seed, site, years) : calendarOf(site);
  const { classes, drivers } = roster;

  const planned: PlannedClass[] = [];
  const events: EventRec[] = calendar.events.map((e, eventIndex) => {
    const yearIndex = yearOf(e.day) - item(years, 0);
    const rng = createRng(hash32(seed, TAG.eventClasses, e.id));
    const count = Math.min(classes.length, rng.int(params.classesPerEvent[0], params.classesPerEvent[1]));
    const chosen = weightedSample(
      classes.map((_, i) => i),
      count,
      (c) => 1 / (1 + 0.25 * c),
      rng,
    ).sort((a, b) => a - b);
    const ecStart = planned.length;
    for (const cls of chosen) {
      const klass = item(classes, cls);
      const fieldRng = createRng(hash32(seed, TAG.field, e.id, klass.id));
      const pool = roster.active[yearIndex]?.[cls] ?? [];
      const size = Math.min(pool.length, fieldRng.int(params.fieldSize[0], params.fieldSize[1]));
      const weight = (d: number) =>
        roster.legends.has(d) ? 4 : 0.3 + hash01(seed, TAG.driverRegularity, item(drivers, d).id, klass.id);
      // Purse-money overrides mostly on the big nights, as promoters advertise them.
      const overrideShare = e.kind === 'weekly' ? 0.03 : 0.25;
      const override =
        hash01(seed, TAG.classOverride, e.id, klass.id) < overrideShare
          ? `${klass.name} - ${PURSES[hash32(seed, TAG.classOverride, e.id, klass.id) % PURSES.length] ?? ''} to win`
          : '';
      planned.push({ event: eventIndex, cls, override, field: weightedSample(pool, size, weight, fieldRng) });
    }
    return { ...e, ecStart, ecCount: chosen.length };
  });

  const rowTotal = planned.reduce((n, p) => n + 2 * p.field.length, 0);
  const raceTotal = planned.reduce((n, p) => n + heatCount(p.field.length) + 1, 0);
  const model: WorldModel = {
    seed,
    scale,
    years,
    classes,
    drivers,
    schedules: calendar.schedules,
    events,
    eventClasses: {
      cls: new Int32Array(planned.length),
      override: planned.map((p) => p.override),
      raceStart: new Int32Array(planned.length),
      raceCount: new Uint8Array(planned.length),
    },
    races: {
      heat: new Uint8Array(raceTotal),
      laps: new Uint8Array(raceTotal),
      rowStart: new Int32Array(raceTotal),
      rowCount: new Uint8Array(raceTotal),
    },
    rows: {
      driver: new Int32Array(rowTotal),
      finish: new Uint8Array(rowTotal),
      start: new Uint8Array(rowTotal),
      car: new Uint16Array(rowTotal),
      flags: new Uint8Array(rowTotal),
      // Of several sites, two worlds may hold one row (a tour night) at different indexes.
      ...(sites > 1 && { quirkKey: new Uint32Array(rowTotal) }),
    },
    carNumbers: [],
    carNumberIndex: new Map(),
    eventById: new Map(events.map((e, i) => [e.id, i])),
    scheduleById: new Map(calendar.schedules.map((s, i) => [s.id, i])),
    classById: new Map(classes.map((c, i) => [c.id, i])),
    driverById: new Map(drivers.map((d, i) => [d.id, i])),
  };

  let race = 0;
  let row = 0;
  const { eventClasses: ecs, races, rows } = model;
  planned.forEach((p, ec) => {
    const event = item(events, p.event);
    const klass = item(classes, p.cls);
    const rng = createRng(hash32(seed, TAG.race, event.id, klass.id));
    const outcome = runEventClass(p.field, (d) => hash01(seed, TAG.driverSkill, item(drivers, d).id, klass.id), rng);
    const heatLaps = rng.int(8, 10);
    const featureLaps = event.kind === 'special' ? 40 : 5 * rng.int(4, 8);
    ecs.cls[ec] = p.cls;
    ecs.raceStart[ec] = race;
    ecs.raceCount[ec] = outcome.heats.length + 1;
    [...outcome.heats, outcome.feature].forEach((r, i) => {
      const feature = i === outcome.heats.length;
      races.heat[race] = feature ? 0 : i + 1;
      races.laps[race] = feature ? featureLaps : heatLaps;
      races.rowStart[race] = row;
      races.rowCount[race] = r.drivers.length;
      r.drivers.forEach((driver, place) => {
        rows.driver[row] = driver;
        rows.finish[row] = place + 1;
        rows.start[row] = item(r.starts, place);
        rows.car[row] = internCarNumber(model, roster.carOf[p.cls]?.get(driver) ?? '');
        rows.flags[row] = item(r.flags, place);
        if (rows.quirkKey) rows.quirkKey[row] = rowQuirkKey(seed, event.id, klass.id, i + 1, place + 1);
        row++;
      });
      race++;
    });
  });
  return model;
}
