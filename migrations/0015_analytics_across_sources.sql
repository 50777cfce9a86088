-- The analytics views across sources. Upstream ids are global (one MyRacePass platform), so an
-- entity two sources saw (a series event held at a member track, a schedule both list) is one
-- row here, not two: its values come from the source that changed it most recently
-- (`_synced_at`; the source's name breaks a tie), named in `source`, and every source that saw it
-- is listed in the new last column `sources` (filter on one with `'track-a' = ANY (sources)`).
-- What one source sent, as it sent it, stays in mrp.* under `WHERE source = ...`.
--
-- An event's classes, races and results come from the source whose event row is shown, so one
-- event never mixes two sources' cards; its schedules are every schedule any source lists it in.
-- A standings table (schedule and class) comes whole from the source that changed it last.
CREATE OR REPLACE VIEW analytics.events_calendar AS
SELECT e.event_id,
       e.event_date,
       e.event_name,
       e.event_description,
       s.schedule_ids,
       s.schedule_names,
       coalesce(c.class_count, 0) AS class_count,
       c.class_names,
       coalesce(r.classes_with_results, 0) AS classes_with_results,
       coalesce(r.result_rows, 0) AS result_rows,
       r.result_rows IS NOT NULL AS has_results,
       e.source,
       e.sources
  FROM (SELECT DISTINCT ON (ev.event_id)
               ev.event_id, ev.event_date, ev.event_name, ev.event_description, ev.source,
               array_agg(ev.source) OVER (PARTITION BY ev.event_id ORDER BY ev.source
                                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS sources
          FROM mrp.events AS ev
         WHERE ev._deleted_at IS NULL
         ORDER BY ev.event_id, ev._synced_at DESC, ev.source) AS e
  LEFT JOIN (
        SELECT se.event_id,
               array_agg(se.schedule_id ORDER BY se.schedule_id) AS schedule_ids,
               string_agg(se.schedule_name, ', ' ORDER BY se.schedule_id) AS schedule_names
          FROM (SELECT DISTINCT ON (se.event_id, se.schedule_id) se.event_id, se.schedule_id, sc.schedule_name
                  FROM mrp.schedule_events AS se
                  JOIN mrp.schedules AS sc ON sc.source = se.source AND sc.schedule_id = se.schedule_id AND sc._deleted_at IS NULL
                 WHERE se._deleted_at IS NULL
                 ORDER BY se.event_id, se.schedule_id, sc._synced_at DESC, se.source) AS se
         GROUP BY se.event_id) AS s ON s.event_id = e.event_id
  LEFT JOIN (
        SELECT ec.source,
               ec.event_id,
               count(*)::int AS class_count,
               string_agg(coalesce(ec.class_name_override, ec.class_name), ', ' ORDER BY ec.class_id) AS class_names
          FROM mrp.event_classes AS ec
         WHERE ec._deleted_at IS NULL
         GROUP BY ec.source, ec.event_id) AS c ON c.source = e.source AND c.event_id = e.event_id
  LEFT JOIN (
        SELECT res.source, res.event_id, count(DISTINCT res.class_id)::int AS classes_with_results, count(*)::int AS result_rows
          FROM mrp.results AS res
         WHERE res._deleted_at IS NULL
         GROUP BY res.source, res.event_id) AS r ON r.source = e.source AND r.event_id = e.event_id;
--> statement-breakpoint
-- Joined to events_calendar on the source as well, so only the shown source's results appear.
CREATE OR REPLACE VIEW analytics.event_results AS
SELECT ev.event_id,
       ev.event_date,
       ev.event_name,
       ev.schedule_ids,
       ev.schedule_names,
       r.class_id,
       coalesce(c.class_name, ec.class_name) AS class_name,
       coalesce(ec.class_name_override, ec.class_name, c.class_name) AS event_class_name,
       r.race_number,
       ra.race_name,
       ra.race_number = f.feature_race_number AS is_feature,
       r.row_index,
       r.driver_id,
       coalesce(nullif(concat_ws(' ', d.first_name, d.last_name, d.suffix), ''), r.driver_name) AS driver_name,
       r.car_number,
       r.start,
       r.finish,
       CASE WHEN NOT r.dns AND NOT r.dq THEN r.start - r.finish END AS positions_gained,
       r.dnf,
       r.dns,
       r.dq,
       r.source,
       ev.sources
  FROM mrp.results AS r
  JOIN analytics.events_calendar AS ev ON ev.source = r.source AND ev.event_id = r.event_id
  JOIN mrp.races AS ra
    ON ra.source = r.source AND ra.event_id = r.event_id AND ra.class_id = r.class_id AND ra.race_number = r.race_number
   AND ra._deleted_at IS NULL
  JOIN (SELECT source, event_id, class_id, max(race_number) AS feature_race_number
          FROM mrp.races WHERE _deleted_at IS NULL GROUP BY source, event_id, class_id) AS f
    ON f.source = r.source AND f.event_id = r.event_id AND f.class_id = r.class_id
  LEFT JOIN mrp.event_classes AS ec
    ON ec.source = r.source AND ec.event_id = r.event_id AND ec.class_id = r.class_id AND ec._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.source = r.source AND c.class_id = r.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.source = r.source AND d.driver_id = r.driver_id AND d._deleted_at IS NULL
 WHERE r._deleted_at IS NULL;
--> statement-breakpoint
-- An event counts toward every schedule any source lists it in, once per schedule.
CREATE OR REPLACE VIEW analytics.driver_season_summary AS
SELECT er.driver_id,
       min(er.driver_name) AS driver_name,
       sc.schedule_id,
       sc.schedule_name,
       sc.schedule_year,
       er.class_id,
       er.class_name,
       count(*) FILTER (WHERE NOT er.dns)::int AS starts,
       count(*) FILTER (WHERE er.finish = 1 AND NOT er.dns AND NOT er.dq)::int AS wins,
       count(*) FILTER (WHERE er.finish <= 5 AND NOT er.dns AND NOT er.dq)::int AS top5,
       count(*) FILTER (WHERE er.finish <= 10 AND NOT er.dns AND NOT er.dq)::int AS top10,
       round(avg(er.start) FILTER (WHERE NOT er.dns), 2) AS avg_start,
       round(avg(er.finish) FILTER (WHERE NOT er.dns), 2) AS avg_finish,
       coalesce(sum(er.positions_gained), 0)::int AS positions_gained,
       count(*) FILTER (WHERE er.dnf)::int AS dnfs,
       sc.source,
       sc.sources
  FROM analytics.event_results AS er
  JOIN (SELECT DISTINCT event_id, schedule_id FROM mrp.schedule_events WHERE _deleted_at IS NULL) AS se ON se.event_id = er.event_id
  JOIN (SELECT DISTINCT ON (s.schedule_id) s.schedule_id, s.schedule_name, s.schedule_year, s.source,
               array_agg(s.source) OVER (PARTITION BY s.schedule_id ORDER BY s.source
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS sources
          FROM mrp.schedules AS s
         WHERE s._deleted_at IS NULL
         ORDER BY s.schedule_id, s._synced_at DESC, s.source) AS sc ON sc.schedule_id = se.schedule_id
 WHERE er.is_feature AND er.driver_id IS NOT NULL
 GROUP BY er.driver_id, sc.schedule_id, sc.schedule_name, sc.schedule_year, er.class_id, er.class_name, sc.source, sc.sources;
--> statement-breakpoint
CREATE OR REPLACE VIEW analytics.current_standings AS
WITH shown AS (
  -- Per schedule and class, the source that changed its standings last.
  SELECT DISTINCT ON (t.schedule_id, t.class_id) t.schedule_id, t.class_id, t.source,
         array_agg(t.source) OVER (PARTITION BY t.schedule_id, t.class_id ORDER BY t.source
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS sources
    FROM (SELECT schedule_id, class_id, source, max(_synced_at) AS changed_at
            FROM mrp.point_standings WHERE _deleted_at IS NULL GROUP BY schedule_id, class_id, source) AS t
   ORDER BY t.schedule_id, t.class_id, t.changed_at DESC, t.source
)
SELECT ps.schedule_id,
       s.schedule_name,
       s.schedule_year,
       s.schedule_year = max(s.schedule_year) OVER (PARTITION BY ps.source) AS latest_season,
       ps.class_id,
       coalesce(pc.class_name_override, pc.class_name, c.class_name) AS class_name,
       ps.position,
       ps.driver_id,
       coalesce(nullif(concat_ws(' ', d.first_name, d.last_name, d.suffix), ''), 'driver ' || ps.driver_id) AS driver_name,
       ps.car_number,
       trim_scale(ps.point_total) AS point_total,
       trim_scale(first_value(ps.point_total) OVER w - ps.point_total) AS gap_to_leader,
       trim_scale(lag(ps.point_total) OVER w - ps.point_total) AS gap_to_next,
       ps.wins,
       ps.top5,
       ps.top10,
       ps.features,
       ps.points_as_of,
       ps.source,
       shown.sources
  FROM mrp.point_standings AS ps
  JOIN shown ON shown.source = ps.source AND shown.schedule_id = ps.schedule_id AND shown.class_id = ps.class_id
  JOIN mrp.point_schedules AS s ON s.source = ps.source AND s.schedule_id = ps.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.source = ps.source AND pc.schedule_id = ps.schedule_id AND pc.class_id = ps.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.source = ps.source AND c.class_id = ps.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.source = ps.source AND d.driver_id = ps.driver_id AND d._deleted_at IS NULL
 WHERE ps._deleted_at IS NULL
WINDOW w AS (PARTITION BY ps.source, ps.schedule_id, ps.class_id ORDER BY ps.position NULLS LAST, ps.driver_id);
--> statement-breakpoint
CREATE OR REPLACE VIEW analytics.standings_history AS
WITH shown AS (
  -- Per schedule and class, the source whose history has the latest version.
  SELECT DISTINCT ON (t.schedule_id, t.class_id) t.schedule_id, t.class_id, t.source,
         array_agg(t.source) OVER (PARTITION BY t.schedule_id, t.class_id ORDER BY t.source
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS sources
    FROM (SELECT schedule_id, class_id, source, max(valid_from) AS changed_at
            FROM analytics.point_standings_history GROUP BY schedule_id, class_id, source) AS t
   ORDER BY t.schedule_id, t.class_id, t.changed_at DESC, t.source
)
SELECT h.schedule_id,
       s.schedule_name,
       s.schedule_year,
       h.class_id,
       coalesce(pc.class_name_override, pc.class_name, c.class_name) AS class_name,
       h.driver_id,
       coalesce(nullif(concat_ws(' ', d.first_name, d.last_name, d.suffix), ''), 'driver ' || h.driver_id) AS driver_name,
       row_number() OVER w AS version,
       h.position,
       lag(h.position) OVER w - h.position AS positions_gained,
       trim_scale(h.point_total) AS point_total,
       trim_scale(h.point_total - lag(h.point_total) OVER w) AS points_gained,
       h.wins,
       h.top5,
       h.top10,
       h.features,
       h.car_number,
       h.points_as_of,
       h.valid_from,
       h.valid_to,
       h.is_current,
       h.source,
       shown.sources
  FROM analytics.point_standings_history AS h
  JOIN shown ON shown.source = h.source AND shown.schedule_id = h.schedule_id AND shown.class_id = h.class_id
  JOIN mrp.point_schedules AS s ON s.source = h.source AND s.schedule_id = h.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.source = h.source AND pc.schedule_id = h.schedule_id AND pc.class_id = h.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.source = h.source AND c.class_id = h.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.source = h.source AND d.driver_id = h.driver_id AND d._deleted_at IS NULL
WINDOW w AS (PARTITION BY h.source, h.schedule_id, h.class_id, h.driver_id ORDER BY h.valid_from, h.history_id);
--> statement-breakpoint
COMMENT ON COLUMN analytics.events_calendar.source IS 'The source whose event row this is: of the sources that saw the event, the one that changed it most recently (its classes and results come from the same source).';--> statement-breakpoint
COMMENT ON COLUMN analytics.events_calendar.sources IS 'Every source that saw the event (a series event held at a member track is seen by both); filter by one with ''name'' = ANY (sources).';--> statement-breakpoint
COMMENT ON COLUMN analytics.event_results.source IS 'The source whose results these are: the one events_calendar shows for the event (of those that saw it, the one that changed it most recently).';--> statement-breakpoint
COMMENT ON COLUMN analytics.event_results.sources IS 'Every source that saw the event; filter by one with ''name'' = ANY (sources).';--> statement-breakpoint
COMMENT ON COLUMN analytics.driver_season_summary.source IS 'The source whose schedule row names the schedule: of the sources that list it, the one that changed it most recently.';--> statement-breakpoint
COMMENT ON COLUMN analytics.driver_season_summary.sources IS 'Every source that lists the schedule; filter by one with ''name'' = ANY (sources).';--> statement-breakpoint
COMMENT ON COLUMN analytics.current_standings.source IS 'The source whose standings these are: of the sources that sent this schedule and class, the one that changed them most recently.';--> statement-breakpoint
COMMENT ON COLUMN analytics.current_standings.sources IS 'Every source that sent standings of this schedule and class; filter by one with ''name'' = ANY (sources).';--> statement-breakpoint
COMMENT ON COLUMN analytics.standings_history.source IS 'The source whose history this is: of the sources that sent this schedule and class, the one with the latest version.';--> statement-breakpoint
COMMENT ON COLUMN analytics.standings_history.sources IS 'Every source whose history has this schedule and class; filter by one with ''name'' = ANY (sources).';
