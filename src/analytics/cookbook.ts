/**
 * Questions analysts ask, with the SQL that answers each: the one source of the cookbook in
 * docs/cookbook.md (rendered by analytics-doc.ts) and of test/analytics/cookbook.test.ts, which
 * runs every recipe on both backends against the simulator's world and checks the answers
 * against its ground truth. Recipes read the analytics views (and mrp where a view would not
 * help), so they keep working for a role granted only those schemas.
 */
export interface Recipe {
  /** Stable, kebab-case; the tests key their checks by it. */
  id: string;
  question: string;
  /** What the reader should know to use or adapt it: one or two sentences. */
  note?: string;
  /** Positional parameters $1, $2, ... in order. */
  params?: ReadonlyArray<{ name: string; description: string }>;
  sql: string;
}

// "This season": the latest year any live schedule belongs to. The upstream's own year, not the
// wall clock, so a warehouse that stopped syncing (or the simulator's world) still answers.
const THIS_SEASON = `(SELECT max(schedule_year) FROM mrp.schedules WHERE _deleted_at IS NULL)`;

export const COOKBOOK: readonly Recipe[] = [
  {
    id: 'feature-wins-this-season',
    question: 'Who has won the most features this season?',
    note: 'The feature is the last race of a class at an event (`is_feature`). An event that counts toward two schedules is still one win.',
    sql: `SELECT driver_id, driver_name, count(*)::int AS feature_wins
FROM analytics.event_results
WHERE is_feature AND finish = 1 AND NOT dns AND NOT dq
  AND date_part('year', event_date) = ${THIS_SEASON}
GROUP BY driver_id, driver_name
ORDER BY feature_wins DESC, driver_name
LIMIT 10;`,
  },
  {
    id: 'points-leaders',
    question: 'Who leads each points race this season, and by how much?',
    sql: `SELECT leader.schedule_name, leader.class_name, leader.driver_id, leader.driver_name AS leader,
       leader.point_total, second.driver_name AS second, second.gap_to_leader AS margin
FROM analytics.current_standings AS leader
LEFT JOIN analytics.current_standings AS second
  ON second.schedule_id = leader.schedule_id AND second.class_id = leader.class_id AND second.position = 2
WHERE leader.latest_season AND leader.position = 1
ORDER BY leader.schedule_name, leader.class_name;`,
  },
  {
    id: 'points-movers-last-month',
    question: 'Who are the biggest movers in points since last month?',
    note:
      'Compares each standing now with its version as of a month before the latest standings date (`points_as_of`). ' +
      'The history starts when pitwall first loaded the standings, so a schedule appears once pitwall has watched it for a month.',
    sql: `WITH latest AS (
  SELECT schedule_id, max(points_as_of) AS as_of FROM analytics.standings_history GROUP BY schedule_id
), month_ago AS (
  SELECT DISTINCT ON (h.schedule_id, h.class_id, h.driver_id) h.schedule_id, h.class_id, h.driver_id, h.position, h.point_total
  FROM analytics.standings_history AS h
  JOIN latest USING (schedule_id)
  WHERE h.points_as_of <= latest.as_of - interval '1 month'
  ORDER BY h.schedule_id, h.class_id, h.driver_id, h.points_as_of DESC, h.version DESC
)
SELECT cur.schedule_id, cur.schedule_name, cur.class_id, cur.class_name, cur.driver_id, cur.driver_name,
       prev.position AS position_then, cur.position AS position_now,
       coalesce(prev.point_total, 0) AS points_then, cur.point_total AS points_now,
       cur.point_total - coalesce(prev.point_total, 0) AS points_gained
FROM analytics.standings_history AS cur
LEFT JOIN month_ago AS prev USING (schedule_id, class_id, driver_id)
WHERE cur.is_current
  AND EXISTS (SELECT FROM month_ago AS m WHERE m.schedule_id = cur.schedule_id)
ORDER BY points_gained DESC, cur.driver_name
LIMIT 10;`,
  },
  {
    id: 'driver-career',
    question: "What does a driver's career look like, season by season and class by class?",
    params: [{ name: 'driver_id', description: 'the driver (mrp.drivers.driver_id)' }],
    sql: `SELECT date_part('year', event_date)::int AS season, class_id, class_name,
       count(*) FILTER (WHERE NOT dns)::int AS starts,
       count(*) FILTER (WHERE finish = 1 AND NOT dns AND NOT dq)::int AS wins,
       count(*) FILTER (WHERE finish <= 5 AND NOT dns AND NOT dq)::int AS top5,
       round(avg(finish) FILTER (WHERE NOT dns), 2) AS avg_finish
FROM analytics.event_results
WHERE is_feature AND driver_id = $1
GROUP BY 1, class_id, class_name
ORDER BY season, class_name;`,
  },
  {
    id: 'events-missing-results',
    question: 'Which events have already run but still lack results?',
    note: 'Compares the event date with the database clock (`localtimestamp`); an event with results for some classes but not all shows too.',
    sql: `SELECT event_id, event_date, event_name, schedule_names, class_count, classes_with_results
FROM analytics.events_calendar
WHERE event_date < localtimestamp AND classes_with_results < class_count
ORDER BY event_date, event_id;`,
  },
  {
    id: 'hard-chargers',
    question: 'Who gained the most positions in features this season?',
    note: 'Positions gained are start minus finish; DNS and DQ rows carry none.',
    sql: `SELECT driver_id, driver_name, class_id, class_name, count(*)::int AS features, sum(positions_gained)::int AS positions_gained
FROM analytics.event_results
WHERE is_feature AND positions_gained IS NOT NULL
  AND date_part('year', event_date) = ${THIS_SEASON}
GROUP BY driver_id, driver_name, class_id, class_name
ORDER BY positions_gained DESC, driver_name
LIMIT 10;`,
  },
  {
    id: 'dnf-rate',
    question: 'Who fails to finish most often (at least 10 starts, heats and features)?',
    sql: `SELECT driver_id, driver_name,
       count(*) FILTER (WHERE NOT dns)::int AS starts,
       count(*) FILTER (WHERE dnf)::int AS dnfs,
       round(100.0 * count(*) FILTER (WHERE dnf) / count(*) FILTER (WHERE NOT dns), 1) AS dnf_percent
FROM analytics.event_results
GROUP BY driver_id, driver_name
HAVING count(*) FILTER (WHERE NOT dns) >= 10
ORDER BY dnf_percent DESC, dnfs DESC, driver_name
LIMIT 10;`,
  },
  {
    id: 'field-sizes',
    question: 'How big are the feature fields, class by class and season by season?',
    sql: `SELECT date_part('year', event_date)::int AS season, class_id, class_name,
       count(DISTINCT event_id)::int AS events,
       round(count(*)::numeric / count(DISTINCT event_id), 1) AS avg_cars_per_feature
FROM analytics.event_results
WHERE is_feature
GROUP BY 1, class_id, class_name
ORDER BY season DESC, class_name;`,
  },
  {
    id: 'head-to-head',
    question: 'Head to head: how often did one driver finish ahead of another in the features both started?',
    params: [
      { name: 'driver_id', description: 'the driver' },
      { name: 'rival_id', description: 'the rival' },
    ],
    sql: `SELECT a.driver_name AS driver, b.driver_name AS rival,
       count(*)::int AS features_together,
       count(*) FILTER (WHERE a.finish < b.finish)::int AS driver_ahead,
       count(*) FILTER (WHERE b.finish < a.finish)::int AS rival_ahead
FROM analytics.event_results AS a
JOIN analytics.event_results AS b
  ON b.event_id = a.event_id AND b.class_id = a.class_id AND b.race_number = a.race_number
WHERE a.is_feature AND a.driver_id = $1 AND b.driver_id = $2 AND NOT a.dns AND NOT b.dns
GROUP BY a.driver_name, b.driver_name;`,
  },
  {
    id: 'latest-feature-winners',
    question: 'Who won the features at the most recent event with results?',
    sql: `SELECT event_date, event_name, class_id, event_class_name, driver_id, driver_name, car_number, start
FROM analytics.event_results
WHERE is_feature AND finish = 1 AND NOT dq
  AND event_id = (SELECT event_id FROM analytics.events_calendar WHERE has_results ORDER BY event_date DESC, event_id DESC LIMIT 1)
ORDER BY class_name;`,
  },
  {
    id: 'events-in-two-schedules',
    question: 'Which events count toward more than one schedule?',
    sql: `SELECT event_id, event_date, event_name, schedule_names
FROM analytics.events_calendar
WHERE cardinality(schedule_ids) > 1
ORDER BY event_date, event_id;`,
  },
  {
    id: 'season-summary',
    question: 'How did every driver of a class do over one schedule: starts, wins, top 5s, average start and finish?',
    params: [
      { name: 'schedule_id', description: 'the schedule (mrp.schedules.schedule_id)' },
      { name: 'class_id', description: 'the class (mrp.classes.class_id)' },
    ],
    sql: `SELECT driver_id, driver_name, starts, wins, top5, top10, avg_start, avg_finish, positions_gained, dnfs
FROM analytics.driver_season_summary
WHERE schedule_id = $1 AND class_id = $2
ORDER BY wins DESC, top5 DESC, avg_finish, driver_name;`,
  },
  {
    id: 'standings-progression',
    question: "How did a driver's position and points move through a season?",
    note: 'One row per change pitwall saw; `valid_from` is when pitwall loaded it, `points_as_of` the date the upstream states.',
    params: [
      { name: 'driver_id', description: 'the driver' },
      { name: 'schedule_id', description: 'the points schedule (mrp.point_schedules.schedule_id)' },
    ],
    sql: `SELECT class_id, class_name, version, points_as_of, position, positions_gained, point_total, points_gained, valid_from
FROM analytics.standings_history
WHERE driver_id = $1 AND schedule_id = $2
ORDER BY class_name, version;`,
  },
];
