import type { TruthRow } from '../../../src/simulator/world/types.js';

import type { WalkedRequest } from './helpers.js';

/**
 * Parsed responses mapped to warehouse rows the way an ingester maps them, to compare with the
 * world's truth. Only what the tests compare is mapped.
 */

type Item = Record<string, unknown>;
const driverOf = (item: Item) => ((item.Driver as Item[] | undefined)?.[0]?.DriverId ?? null) as number | null;
/** A numeric as the warehouse compares it: "370.00" and "370" are the same value. */
const numeric = (v: unknown) => (typeof v === 'string' && v.includes('.') ? v.replace(/\.?0+$/, '') : v);

type Query = WalkedRequest['query'];
/** Rows of every walked response of `path`, one mapper call per item. */
function rowsOf(requests: WalkedRequest[], path: string, map: (item: Item, query: Query) => TruthRow[]): TruthRow[] {
  return requests.filter((r) => r.path === path).flatMap((r) => r.items.flatMap((item) => map(item, r.query)));
}

export function resultsRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/results/', (cls, q) =>
    (cls.Races as Item[]).flatMap((race, ri) =>
      (race.Results as Item[]).map((row, i) => ({
        event_id: q.EventId as number,
        class_id: cls.ClassId as number,
        race_number: ri + 1,
        row_index: i + 1,
        driver_id: driverOf(row),
        driver_name: row.DriverName as string,
        finish: row.ResultPlace as number,
        start: row.ResultStart as number,
        car_number: row.ResultCarNum as string,
        dnf: row.ResultDNF as boolean,
        dns: row.ResultDNS as boolean,
        dq: row.ResultDQ as boolean,
      })),
    ),
  );
}

/** /v2/points/ rows take their class and as-of date from the response's header. */
export function standingRows(requests: WalkedRequest[]): TruthRow[] {
  return requests
    .filter((r) => r.path === '/v2/points/')
    .flatMap((r) =>
      r.items.map((row) => ({
        schedule_id: r.query.ScheduleId as number,
        class_id: r.header?.ClassId as number,
        driver_id: driverOf(row) as number,
        position: row.Position as number,
        car_number: row.CarNum as string,
        point_total: numeric(row.PointTotal) as string,
        wins: row.Wins as number,
        top5: row.Top5 as number,
        top10: row.Top10 as number,
        features: row.Features as number,
        points_as_of: r.header?.PointsAsOf as string | null,
      })),
    );
}

export function lineupRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/lineups/', (cls, q) =>
    (cls.Races as Item[]).flatMap((race, ri) =>
      (race.Lineup as Item[]).map((l) => ({
        event_id: q.EventId as number,
        class_id: cls.ClassId as number,
        race_number: ri + 1,
        start_position: l.StartPosition as number,
        race_name: race.RaceName as string,
        car_number: l.CarNum as string,
        driver_id: driverOf(l),
      })),
    ),
  );
}

export function entryRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/entryList/', (cls, q) =>
    (cls.Entries as Item[]).map((e) => ({ event_id: q.EventId as number, class_id: cls.ClassId as number, driver_id: driverOf(e), car_number: e.CarNum as string })),
  );
}

export function passRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/driverPasses/', (p) => [
    { event_id: p.EventId as number, class_id: p.ClassId as number, driver_id: driverOf(p), car_number: p.CarNum as string, races: p.Races as number, cars_passed: p.CarsPassed as number },
  ]);
}

export function feedRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/results/feed/', (e) =>
    (e.Classes as Item[]).flatMap((cls) =>
      (cls.Results as Item[]).map((r) => ({
        event_id: e.EventId as number,
        class_id: cls.ClassId as number,
        finish: r.ResultPlace as number,
        event_date: e.EventDate as string,
        event_name: e.EventName as string,
        race_name: cls.RaceName as string,
        car_number: r.ResultCarNum as string,
        driver_id: driverOf(r),
      })),
    ),
  );
}

export function statRows(requests: WalkedRequest[]): TruthRow[] {
  return rowsOf(requests, '/v2/schedules/driverStats/', (s) => [
    {
      driver_id: driverOf(s),
      class_id: s.ClassId as number,
      year: s.ScheduleYear as number,
      starts: s.Starts as number,
      wins: s.Wins as number,
      top5: s.Top5 as number,
      top10: s.Top10 as number,
      avg_start: numeric(s.AvgStart) as string | null,
      avg_finish: numeric(s.AvgFinish) as string | null,
    },
  ]);
}
