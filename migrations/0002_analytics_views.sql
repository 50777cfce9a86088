-- The analysts' schema: standings history kept by triggers, and five views over mrp.
-- Every view reads only live rows (_deleted_at IS NULL) of the mrp tables it touches.

-- Standings history. Triggers rather than the loading code: the history then follows every
-- write to mrp.point_standings whoever makes it (the sync, a manual fix, a future loader), and
-- works the same on PostgreSQL and on the embedded PGlite. Statement-level triggers with
-- transition tables, because the loader writes standings set-based (thousands of rows per
-- statement): one UPDATE and one INSERT per statement, not two per row.
CREATE FUNCTION analytics.record_point_standings_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Close the current version of each standing that changed or was marked deleted. The
  -- comparison is with the version on record, not with OLD, so a write that changes nothing
  -- (or only bookkeeping) leaves the history alone.
  UPDATE analytics.point_standings_history AS h
     SET valid_to = now()
    FROM written AS n
   WHERE h.valid_to IS NULL
     AND h.schedule_id = n.schedule_id AND h.class_id = n.class_id AND h.driver_id = n.driver_id
     AND (n._deleted_at IS NOT NULL
          OR (h.position, h.car_number, h.point_total, h.wins, h.top5, h.top10, h.features, h.points_as_of)
             IS DISTINCT FROM (n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features, n.points_as_of));
  -- Open a version for each live standing that has no current one: new, changed, or back.
  INSERT INTO analytics.point_standings_history
         (schedule_id, class_id, driver_id, position, car_number, point_total, wins, top5, top10, features, points_as_of, valid_from, run_id)
  SELECT n.schedule_id, n.class_id, n.driver_id, n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features,
         n.points_as_of, now(), n._run_id
    FROM written AS n
   WHERE n._deleted_at IS NULL
     AND NOT EXISTS (SELECT FROM analytics.point_standings_history AS h
                      WHERE h.valid_to IS NULL
                        AND h.schedule_id = n.schedule_id AND h.class_id = n.class_id AND h.driver_id = n.driver_id);
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- A trigger with transition tables serves one event only, hence two.
CREATE TRIGGER point_standings_history_insert AFTER INSERT ON mrp.point_standings
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION analytics.record_point_standings_history();
--> statement-breakpoint
CREATE TRIGGER point_standings_history_update AFTER UPDATE ON mrp.point_standings
  REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION analytics.record_point_standings_history();
--> statement-breakpoint
-- Standings loaded before this migration start their history at their last change.
INSERT INTO analytics.point_standings_history
       (schedule_id, class_id, driver_id, position, car_number, point_total, wins, top5, top10, features, points_as_of, valid_from, run_id)
SELECT schedule_id, class_id, driver_id, position, car_number, point_total, wins, top5, top10, features, points_as_of, _synced_at, _run_id
  FROM mrp.point_standings
 WHERE _deleted_at IS NULL;
--> statement-breakpoint
CREATE VIEW analytics.events_calendar AS
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
       r.result_rows IS NOT NULL AS has_results
  FROM mrp.events AS e
  LEFT JOIN (
        SELECT se.event_id,
               array_agg(se.schedule_id ORDER BY se.schedule_id) AS schedule_ids,
               string_agg(sc.schedule_name, ', ' ORDER BY se.schedule_id) AS schedule_names
          FROM mrp.schedule_events AS se
          JOIN mrp.schedules AS sc ON sc.schedule_id = se.schedule_id AND sc._deleted_at IS NULL
         WHERE se._deleted_at IS NULL
         GROUP BY se.event_id) AS s ON s.event_id = e.event_id
  LEFT JOIN (
        SELECT ec.event_id,
               count(*)::int AS class_count,
               string_agg(coalesce(ec.class_name_override, ec.class_name), ', ' ORDER BY ec.class_id) AS class_names
          FROM mrp.event_classes AS ec
         WHERE ec._deleted_at IS NULL
         GROUP BY ec.event_id) AS c ON c.event_id = e.event_id
  LEFT JOIN (
        SELECT res.event_id, count(DISTINCT res.class_id)::int AS classes_with_results, count(*)::int AS result_rows
          FROM mrp.results AS res
         WHERE res._deleted_at IS NULL
         GROUP BY res.event_id) AS r ON r.event_id = e.event_id
 WHERE e._deleted_at IS NULL;
--> statement-breakpoint
CREATE VIEW analytics.event_results AS
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
       r.dq
  FROM mrp.results AS r
  JOIN analytics.events_calendar AS ev ON ev.event_id = r.event_id
  JOIN mrp.races AS ra
    ON ra.event_id = r.event_id AND ra.class_id = r.class_id AND ra.race_number = r.race_number AND ra._deleted_at IS NULL
  JOIN (SELECT event_id, class_id, max(race_number) AS feature_race_number
          FROM mrp.races WHERE _deleted_at IS NULL GROUP BY event_id, class_id) AS f
    ON f.event_id = r.event_id AND f.class_id = r.class_id
  LEFT JOIN mrp.event_classes AS ec
    ON ec.event_id = r.event_id AND ec.class_id = r.class_id AND ec._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.class_id = r.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.driver_id = r.driver_id AND d._deleted_at IS NULL
 WHERE r._deleted_at IS NULL;
--> statement-breakpoint
CREATE VIEW analytics.driver_season_summary AS
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
       count(*) FILTER (WHERE er.dnf)::int AS dnfs
  FROM analytics.event_results AS er
  JOIN mrp.schedule_events AS se ON se.event_id = er.event_id AND se._deleted_at IS NULL
  JOIN mrp.schedules AS sc ON sc.schedule_id = se.schedule_id AND sc._deleted_at IS NULL
 WHERE er.is_feature AND er.driver_id IS NOT NULL
 GROUP BY er.driver_id, sc.schedule_id, sc.schedule_name, sc.schedule_year, er.class_id, er.class_name;
--> statement-breakpoint
CREATE VIEW analytics.current_standings AS
SELECT ps.schedule_id,
       s.schedule_name,
       s.schedule_year,
       s.schedule_year = max(s.schedule_year) OVER () AS latest_season,
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
       ps.points_as_of
  FROM mrp.point_standings AS ps
  JOIN mrp.point_schedules AS s ON s.schedule_id = ps.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.schedule_id = ps.schedule_id AND pc.class_id = ps.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.class_id = ps.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.driver_id = ps.driver_id AND d._deleted_at IS NULL
 WHERE ps._deleted_at IS NULL
WINDOW w AS (PARTITION BY ps.schedule_id, ps.class_id ORDER BY ps.position NULLS LAST, ps.driver_id);
--> statement-breakpoint
CREATE VIEW analytics.standings_history AS
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
       h.is_current
  FROM analytics.point_standings_history AS h
  JOIN mrp.point_schedules AS s ON s.schedule_id = h.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.schedule_id = h.schedule_id AND pc.class_id = h.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.class_id = h.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.driver_id = h.driver_id AND d._deleted_at IS NULL
WINDOW w AS (PARTITION BY h.schedule_id, h.class_id, h.driver_id ORDER BY h.valid_from, h.history_id);
