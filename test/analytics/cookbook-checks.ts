import { expect } from 'vitest';

import type { Truth } from '../../src/simulator/world/types.js';

import {
  countBy,
  eventDates,
  featureRows,
  latestYear,
  monthBefore,
  results,
  roundedRatio,
  standings,
  type Standing,
} from './truth.js';

/** What a check gets: the recipe runner, the truth before and after the clock moved a month, and the DB clock. */
export interface CheckContext {
  run: (params?: unknown[]) => Promise<Array<Record<string, unknown>>>;
  /** The world after the second sync: what the warehouse holds now. */
  truth: Truth;
  /** The world at the first sync, a month earlier. */
  before: Truth;
  localTimestamp: string;
}

type Check = (c: CheckContext) => Promise<void>;

const num = (v: unknown) => (v === null ? null : Number(v));
const key = (...parts: unknown[]) => parts.join(':');

/** The top `n` of `expected` by value: what a `ORDER BY value DESC LIMIT n` must return, ties aside. */
function expectTopN(rows: Array<Record<string, unknown>>, column: string, expected: Map<string | number, number>, rowKey: (r: Record<string, unknown>) => string | number, n = 10): void {
  expect(rows.length).toBe(Math.min(n, expected.size));
  expect(num(rows[0]?.[column])).toBe(Math.max(...expected.values()));
  for (const r of rows) expect({ key: rowKey(r), value: num(r[column]) }).toEqual({ key: rowKey(r), value: expected.get(rowKey(r)) });
}

function latestStandings(truth: Truth): Standing[] {
  const years = new Map(truth.point_schedules.map((s) => [s.schedule_id as number, s.schedule_year as number]));
  const latest = Math.max(...years.values());
  return standings(truth).filter((s) => years.get(s.schedule_id) === latest);
}

/** Two drivers who met in many features: the top two of one of the latest season's standings. */
function rivals(truth: Truth): [number, number] {
  const all = latestStandings(truth);
  const [p1, p2] = all.filter((s) => s.schedule_id === all[0]!.schedule_id && s.class_id === all[0]!.class_id).sort((a, b) => a.position - b.position);
  return [p1!.driver_id, p2!.driver_id];
}

export const CHECKS: Record<string, Check> = {
  'feature-wins-this-season': async ({ run, truth }) => {
    const year = latestYear(truth);
    const wins = countBy(featureRows(truth).filter((r) => r.year === year && r.finish === 1 && !r.dns && !r.dq), (r) => r.driver_id);
    expectTopN(await run(), 'feature_wins', wins, (r) => r.driver_id as number);
  },

  'points-leaders': async ({ run, truth }) => {
    const tables = new Map<string, Standing[]>();
    for (const s of latestStandings(truth)) tables.set(key(s.schedule_id, s.class_id), [...(tables.get(key(s.schedule_id, s.class_id)) ?? []), s]);
    const expected = [...tables.values()].map((t) => {
      const [p1, p2] = [...t].sort((a, b) => a.position - b.position);
      return key(p1!.driver_id, Number(p1!.point_total), p2 ? Number(p1!.point_total) - Number(p2.point_total) : null);
    });
    const rows = await run();
    expect(rows.map((r) => key(r.driver_id, num(r.point_total), num(r.margin))).sort()).toEqual(expected.sort());
  },

  'points-movers-last-month': async ({ run, truth, before }) => {
    const latestAsOf = new Map<number, string>();
    for (const s of standings(truth)) if (s.points_as_of > (latestAsOf.get(s.schedule_id) ?? '')) latestAsOf.set(s.schedule_id, s.points_as_of);
    const monthAgo = new Map(
      standings(before)
        .filter((s) => s.points_as_of <= monthBefore(latestAsOf.get(s.schedule_id) ?? ''))
        .map((s) => [key(s.schedule_id, s.class_id, s.driver_id), Number(s.point_total)]),
    );
    const watched = new Set([...monthAgo.keys()].map((k) => k.split(':')[0]));
    const gains = new Map(
      standings(truth)
        .filter((s) => watched.has(String(s.schedule_id)))
        .map((s) => [key(s.schedule_id, s.class_id, s.driver_id), Number(s.point_total) - (monthAgo.get(key(s.schedule_id, s.class_id, s.driver_id)) ?? 0)]),
    );
    expect(gains.size).toBeGreaterThan(0);
    expectTopN(await run(), 'points_gained', gains, (r) => key(r.schedule_id, r.class_id, r.driver_id));
  },

  'driver-career': async ({ run, truth }) => {
    const busiest = [...countBy(featureRows(truth), (r) => r.driver_id)].sort((a, b) => b[1] - a[1])[0]![0];
    const expected = truth.driver_stats
      .filter((s) => s.driver_id === busiest)
      .map((s) => key(s.year, s.class_id, s.starts, s.wins, s.top5, num(s.avg_finish)));
    const rows = await run([busiest]);
    expect(rows.map((r) => key(r.season, r.class_id, r.starts, r.wins, r.top5, num(r.avg_finish))).sort()).toEqual(expected.sort());
  },

  'events-missing-results': async ({ run, truth, localTimestamp }) => {
    const withResults = countBy([...new Set(results(truth).map((r) => key(r.event_id, r.class_id)))], (k) => Number(k.split(':')[0]));
    const classes = countBy(truth.event_classes, (ec) => ec.event_id as number);
    const dates = eventDates(truth);
    const expected = [...dates]
      .filter(([id, date]) => date < localTimestamp && (withResults.get(id) ?? 0) < (classes.get(id) ?? 0))
      .sort((a, b) => a[1].localeCompare(b[1]) || a[0] - b[0])
      .map(([id]) => id);
    expect((await run()).map((r) => r.event_id)).toEqual(expected);
  },

  'hard-chargers': async ({ run, truth }) => {
    const year = latestYear(truth);
    const gained = new Map<string, number>();
    for (const r of featureRows(truth).filter((f) => f.year === year && !f.dns && !f.dq)) {
      gained.set(key(r.driver_id, r.class_id), (gained.get(key(r.driver_id, r.class_id)) ?? 0) + r.start - r.finish);
    }
    expectTopN(await run(), 'positions_gained', gained, (r) => key(r.driver_id, r.class_id));
  },

  'dnf-rate': async ({ run, truth }) => {
    const starts = countBy(results(truth).filter((r) => !r.dns), (r) => r.driver_id);
    const dnfs = countBy(results(truth).filter((r) => r.dnf), (r) => r.driver_id);
    const rate = new Map([...starts].filter(([, n]) => n >= 10).map(([d, n]) => [d, roundedRatio(100 * (dnfs.get(d) ?? 0), n, 1)]));
    expectTopN(await run(), 'dnf_percent', rate, (r) => r.driver_id as number);
  },

  'field-sizes': async ({ run, truth }) => {
    const features = featureRows(truth);
    const cars = countBy(features, (r) => key(r.year, r.class_id));
    const events = countBy([...new Set(features.map((r) => key(r.year, r.class_id, r.event_id)))], (k) => k.split(':').slice(0, 2).join(':'));
    const expected = [...cars].map(([k, n]) => key(k, events.get(k), roundedRatio(n, events.get(k)!, 1)));
    const rows = await run();
    expect(rows.map((r) => key(r.season, r.class_id, r.events, num(r.avg_cars_per_feature))).sort()).toEqual(expected.sort());
  },

  'head-to-head': async ({ run, truth }) => {
    const [a, b] = rivals(truth);
    const byRace = new Map<string, Map<number, number>>();
    for (const r of featureRows(truth).filter((f) => !f.dns && (f.driver_id === a || f.driver_id === b))) {
      const race = key(r.event_id, r.class_id, r.race_number);
      byRace.set(race, (byRace.get(race) ?? new Map()).set(r.driver_id, r.finish));
    }
    const together = [...byRace.values()].filter((m) => m.size === 2);
    const rows = await run([a, b]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      features_together: together.length,
      driver_ahead: together.filter((m) => m.get(a)! < m.get(b)!).length,
      rival_ahead: together.filter((m) => m.get(b)! < m.get(a)!).length,
    });
  },

  'latest-feature-winners': async ({ run, truth }) => {
    const dates = eventDates(truth);
    const withResults = [...new Set(results(truth).map((r) => r.event_id))].sort((x, y) => dates.get(y)!.localeCompare(dates.get(x)!) || y - x);
    const latest = withResults[0];
    const expected = featureRows(truth)
      .filter((r) => r.event_id === latest && r.finish === 1 && !r.dq)
      .map((r) => key(r.class_id, r.driver_id));
    expect((await run()).map((r) => key(r.class_id, r.driver_id)).sort()).toEqual(expected.sort());
  },

  'events-in-two-schedules': async ({ run, truth }) => {
    const counts = countBy(truth.schedule_events, (se) => se.event_id as number);
    const expected = [...counts].filter(([, n]) => n > 1).map(([id]) => id as number);
    expect(expected.length).toBeGreaterThan(0);
    expect((await run()).map((r) => r.event_id).sort()).toEqual(expected.sort());
  },

  'season-summary': async ({ run, truth }) => {
    const first = latestStandings(truth)[0]!;
    const table = standings(truth).filter((s) => s.schedule_id === first.schedule_id && s.class_id === first.class_id);
    const rows = await run([first.schedule_id, first.class_id]);
    const expected = table.filter((s) => rows.some((r) => r.driver_id === s.driver_id) || s.features > 0);
    expect(rows.map((r) => key(r.driver_id, r.starts, r.wins, r.top5, r.top10)).sort()).toEqual(
      expected.map((s) => key(s.driver_id, s.features, s.wins, s.top5, s.top10)).sort(),
    );
  },

  'standings-progression': async ({ run, truth, before }) => {
    const old = new Map(standings(before).map((s) => [key(s.schedule_id, s.class_id, s.driver_id), s]));
    const moved = standings(truth).find((s) => {
      const was = old.get(key(s.schedule_id, s.class_id, s.driver_id));
      return was && was.position !== s.position && Number(was.point_total) !== Number(s.point_total);
    })!;
    const was = old.get(key(moved.schedule_id, moved.class_id, moved.driver_id))!;
    const rows = (await run([moved.driver_id, moved.schedule_id])).filter((r) => r.class_id === moved.class_id);
    expect(rows.map((r) => [num(r.version), r.position, num(r.point_total), r.positions_gained, num(r.points_gained)])).toEqual([
      [1, was.position, Number(was.point_total), null, null],
      [2, moved.position, Number(moved.point_total), was.position - moved.position, Number(moved.point_total) - Number(was.point_total)],
    ]);
  },
};
