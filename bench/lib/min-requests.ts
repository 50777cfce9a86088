import type { Truth } from '../../src/simulator/world/types.js';

const distinct = (rows: readonly Record<string, unknown>[], ...columns: string[]): number =>
  new Set(rows.map((r) => columns.map((c) => String(r[c])).join('/'))).size;

/**
 * The fewest requests a full walk can make: one per distinct path+query it has to fetch,
 * counted from the world's ground truth rather than from the walk's own code, so a walk that
 * fetched something twice (or fetched something it need not) shows up as requests > minimum.
 *
 * Schedules side: the years list; the schedules of each year; the events of each schedule;
 * results, lineups, entry list and driver passes of each distinct event. The feed and the
 * driver statistics once each. Points side: the years list; the points schedules of each year;
 * the classes of each points schedule; the standings of each (schedule, class).
 */
export function minimumRequests(truth: Truth): { total: number; parts: Record<string, number> } {
  const parts = {
    scheduleYears: 1,
    schedules: distinct(truth.schedule_years, 'year'),
    events: distinct(truth.schedules, 'schedule_id'),
    eventDetail: 4 * distinct(truth.schedule_events, 'event_id'),
    feed: 1,
    driverStats: 1,
    pointYears: 1,
    pointSchedules: distinct(truth.point_years, 'year'),
    pointClasses: distinct(truth.point_schedules, 'schedule_id'),
    standings: distinct(truth.point_classes, 'schedule_id', 'class_id'),
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}
