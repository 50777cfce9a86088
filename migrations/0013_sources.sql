-- Sources: one warehouse for several API keys (sites). Every mrp row, every standings version
-- and every pitwall row that belongs to a source carries the source's name, first in every key,
-- so one source's deletions, progress and shape tracking never touch another's. The rows of a
-- warehouse made before sources existed become source 'default', the name of the single source
-- MRP_API_KEY configures. Adding a column with a constant default rewrites nothing; each key
-- is rebuilt, which takes time on a large warehouse: `pitwall migrate` reports how long.
--
-- Hand-ordered: columns first, then the keys that use them (drizzle-kit orders the other way).
ALTER TABLE "mrp"."schedule_years" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."schedules" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."events" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."schedule_events" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."event_classes" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."classes" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."drivers" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."races" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."results" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."lineups" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."entry_list" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."driver_passes" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."results_feed" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."driver_stats" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."point_years" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."point_schedules" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."point_classes" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."point_standings" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_state" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."rejects" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."responses" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."field_errors" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."shape_paths" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "analytics"."point_standings_history" ADD COLUMN "source" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "mrp"."schedule_years" DROP CONSTRAINT "schedule_years_pkey", ADD CONSTRAINT "schedule_years_source_year_pk" PRIMARY KEY("source","year");--> statement-breakpoint
ALTER TABLE "mrp"."schedules" DROP CONSTRAINT "schedules_pkey", ADD CONSTRAINT "schedules_source_schedule_id_pk" PRIMARY KEY("source","schedule_id");--> statement-breakpoint
ALTER TABLE "mrp"."events" DROP CONSTRAINT "events_pkey", ADD CONSTRAINT "events_source_event_id_pk" PRIMARY KEY("source","event_id");--> statement-breakpoint
ALTER TABLE "mrp"."schedule_events" DROP CONSTRAINT "schedule_events_schedule_id_event_id_pk", ADD CONSTRAINT "schedule_events_source_schedule_id_event_id_pk" PRIMARY KEY("source","schedule_id","event_id");--> statement-breakpoint
ALTER TABLE "mrp"."event_classes" DROP CONSTRAINT "event_classes_event_id_class_id_pk", ADD CONSTRAINT "event_classes_source_event_id_class_id_pk" PRIMARY KEY("source","event_id","class_id");--> statement-breakpoint
ALTER TABLE "mrp"."classes" DROP CONSTRAINT "classes_pkey", ADD CONSTRAINT "classes_source_class_id_pk" PRIMARY KEY("source","class_id");--> statement-breakpoint
ALTER TABLE "mrp"."drivers" DROP CONSTRAINT "drivers_pkey", ADD CONSTRAINT "drivers_source_driver_id_pk" PRIMARY KEY("source","driver_id");--> statement-breakpoint
ALTER TABLE "mrp"."races" DROP CONSTRAINT "races_event_id_class_id_race_number_pk", ADD CONSTRAINT "races_source_event_id_class_id_race_number_pk" PRIMARY KEY("source","event_id","class_id","race_number");--> statement-breakpoint
ALTER TABLE "mrp"."results" DROP CONSTRAINT "results_event_id_class_id_race_number_row_index_pk", ADD CONSTRAINT "results_source_event_id_class_id_race_number_row_index_pk" PRIMARY KEY("source","event_id","class_id","race_number","row_index");--> statement-breakpoint
ALTER TABLE "mrp"."lineups" DROP CONSTRAINT "lineups_event_id_class_id_race_number_start_position_pk", ADD CONSTRAINT "lineups_source_event_id_class_id_race_number_start_position_pk" PRIMARY KEY("source","event_id","class_id","race_number","start_position");--> statement-breakpoint
ALTER TABLE "mrp"."entry_list" DROP CONSTRAINT "entry_list_event_id_class_id_driver_id_pk", ADD CONSTRAINT "entry_list_source_event_id_class_id_driver_id_pk" PRIMARY KEY("source","event_id","class_id","driver_id");--> statement-breakpoint
ALTER TABLE "mrp"."driver_passes" DROP CONSTRAINT "driver_passes_event_id_class_id_driver_id_pk", ADD CONSTRAINT "driver_passes_source_event_id_class_id_driver_id_pk" PRIMARY KEY("source","event_id","class_id","driver_id");--> statement-breakpoint
ALTER TABLE "mrp"."results_feed" DROP CONSTRAINT "results_feed_event_id_class_id_finish_pk", ADD CONSTRAINT "results_feed_source_event_id_class_id_finish_pk" PRIMARY KEY("source","event_id","class_id","finish");--> statement-breakpoint
ALTER TABLE "mrp"."driver_stats" DROP CONSTRAINT "driver_stats_driver_id_class_id_year_pk", ADD CONSTRAINT "driver_stats_source_driver_id_class_id_year_pk" PRIMARY KEY("source","driver_id","class_id","year");--> statement-breakpoint
ALTER TABLE "mrp"."point_years" DROP CONSTRAINT "point_years_pkey", ADD CONSTRAINT "point_years_source_year_pk" PRIMARY KEY("source","year");--> statement-breakpoint
ALTER TABLE "mrp"."point_schedules" DROP CONSTRAINT "point_schedules_pkey", ADD CONSTRAINT "point_schedules_source_schedule_id_pk" PRIMARY KEY("source","schedule_id");--> statement-breakpoint
ALTER TABLE "mrp"."point_classes" DROP CONSTRAINT "point_classes_schedule_id_class_id_pk", ADD CONSTRAINT "point_classes_source_schedule_id_class_id_pk" PRIMARY KEY("source","schedule_id","class_id");--> statement-breakpoint
ALTER TABLE "mrp"."point_standings" DROP CONSTRAINT "point_standings_schedule_id_class_id_driver_id_pk", ADD CONSTRAINT "point_standings_source_schedule_id_class_id_driver_id_pk" PRIMARY KEY("source","schedule_id","class_id","driver_id");--> statement-breakpoint
ALTER TABLE "pitwall"."sync_state" DROP CONSTRAINT "sync_state_endpoint_params_pk", ADD CONSTRAINT "sync_state_source_endpoint_params_pk" PRIMARY KEY("source","endpoint","params");--> statement-breakpoint
ALTER TABLE "pitwall"."shape_paths" DROP CONSTRAINT "shape_paths_endpoint_path_pk", ADD CONSTRAINT "shape_paths_source_endpoint_path_pk" PRIMARY KEY("source","endpoint","path");--> statement-breakpoint
DROP INDEX "pitwall"."field_errors_scope_idx";--> statement-breakpoint
CREATE INDEX "field_errors_scope_idx" ON "pitwall"."field_errors" USING btree ("source","endpoint","params");--> statement-breakpoint
DROP INDEX "pitwall"."responses_scope_idx";--> statement-breakpoint
CREATE INDEX "responses_scope_idx" ON "pitwall"."responses" USING btree ("source","endpoint","params","response_id");--> statement-breakpoint
DROP INDEX "pitwall"."sync_runs_job_started_idx";--> statement-breakpoint
CREATE INDEX "sync_runs_job_started_idx" ON "pitwall"."sync_runs" USING btree ("source","job","started_at");--> statement-breakpoint
DROP INDEX "pitwall"."sync_runs_running_idx";--> statement-breakpoint
CREATE INDEX "sync_runs_running_idx" ON "pitwall"."sync_runs" USING btree ("source","job") WHERE status = 'running';--> statement-breakpoint
DROP INDEX "analytics"."point_standings_history_current_key";--> statement-breakpoint
CREATE UNIQUE INDEX "point_standings_history_current_key" ON "analytics"."point_standings_history" USING btree ("source","schedule_id","class_id","driver_id") WHERE valid_to IS NULL;--> statement-breakpoint
DROP INDEX "analytics"."point_standings_history_key_idx";--> statement-breakpoint
CREATE INDEX "point_standings_history_key_idx" ON "analytics"."point_standings_history" USING btree ("source","schedule_id","class_id","driver_id","valid_from");--> statement-breakpoint
-- The standings history follows each source's standings on their own.
CREATE OR REPLACE FUNCTION analytics.record_point_standings_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Close the current version of each standing that changed or was marked deleted. The
  -- comparison is with the version on record, not with OLD, so a write that changes nothing
  -- (or only bookkeeping) leaves the history alone.
  EXECUTE $sql$
    UPDATE analytics.point_standings_history AS h
       SET valid_to = now()
      FROM written AS n
     WHERE h.valid_to IS NULL
       AND h.source = n.source AND h.schedule_id = n.schedule_id AND h.class_id = n.class_id AND h.driver_id = n.driver_id
       AND (n._deleted_at IS NOT NULL
            OR (h.position, h.car_number, h.point_total, h.wins, h.top5, h.top10, h.features, h.points_as_of)
               IS DISTINCT FROM (n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features, n.points_as_of))
  $sql$;
  -- Open a version for each live standing that has no current one: new, changed, or back.
  INSERT INTO analytics.point_standings_history
         (source, schedule_id, class_id, driver_id, position, car_number, point_total, wins, top5, top10, features, points_as_of, valid_from, run_id)
  SELECT n.source, n.schedule_id, n.class_id, n.driver_id, n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features,
         n.points_as_of, now(), n._run_id
    FROM written AS n
   WHERE n._deleted_at IS NULL
  ON CONFLICT (source, schedule_id, class_id, driver_id) WHERE valid_to IS NULL DO NOTHING;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The views join rows of one source only, and name it in a last column `source` (appended, so
-- CREATE OR REPLACE keeps every other column, and its description, as it was).
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
       e.source
  FROM mrp.events AS e
  LEFT JOIN (
        SELECT se.source,
               se.event_id,
               array_agg(se.schedule_id ORDER BY se.schedule_id) AS schedule_ids,
               string_agg(sc.schedule_name, ', ' ORDER BY se.schedule_id) AS schedule_names
          FROM mrp.schedule_events AS se
          JOIN mrp.schedules AS sc ON sc.source = se.source AND sc.schedule_id = se.schedule_id AND sc._deleted_at IS NULL
         WHERE se._deleted_at IS NULL
         GROUP BY se.source, se.event_id) AS s ON s.source = e.source AND s.event_id = e.event_id
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
         GROUP BY res.source, res.event_id) AS r ON r.source = e.source AND r.event_id = e.event_id
 WHERE e._deleted_at IS NULL;
--> statement-breakpoint
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
       r.source
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
       er.source
  FROM analytics.event_results AS er
  JOIN mrp.schedule_events AS se ON se.source = er.source AND se.event_id = er.event_id AND se._deleted_at IS NULL
  JOIN mrp.schedules AS sc ON sc.source = se.source AND sc.schedule_id = se.schedule_id AND sc._deleted_at IS NULL
 WHERE er.is_feature AND er.driver_id IS NOT NULL
 GROUP BY er.source, er.driver_id, sc.schedule_id, sc.schedule_name, sc.schedule_year, er.class_id, er.class_name;
--> statement-breakpoint
CREATE OR REPLACE VIEW analytics.current_standings AS
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
       ps.source
  FROM mrp.point_standings AS ps
  JOIN mrp.point_schedules AS s ON s.source = ps.source AND s.schedule_id = ps.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.source = ps.source AND pc.schedule_id = ps.schedule_id AND pc.class_id = ps.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.source = ps.source AND c.class_id = ps.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.source = ps.source AND d.driver_id = ps.driver_id AND d._deleted_at IS NULL
 WHERE ps._deleted_at IS NULL
WINDOW w AS (PARTITION BY ps.source, ps.schedule_id, ps.class_id ORDER BY ps.position NULLS LAST, ps.driver_id);
--> statement-breakpoint
CREATE OR REPLACE VIEW analytics.standings_history AS
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
       h.source
  FROM analytics.point_standings_history AS h
  JOIN mrp.point_schedules AS s ON s.source = h.source AND s.schedule_id = h.schedule_id AND s._deleted_at IS NULL
  LEFT JOIN mrp.point_classes AS pc
    ON pc.source = h.source AND pc.schedule_id = h.schedule_id AND pc.class_id = h.class_id AND pc._deleted_at IS NULL
  LEFT JOIN mrp.classes AS c ON c.source = h.source AND c.class_id = h.class_id AND c._deleted_at IS NULL
  LEFT JOIN mrp.drivers AS d ON d.source = h.source AND d.driver_id = h.driver_id AND d._deleted_at IS NULL
WINDOW w AS (PARTITION BY h.source, h.schedule_id, h.class_id, h.driver_id ORDER BY h.valid_from, h.history_id);
--> statement-breakpoint
-- Every new column says what it holds (BI tools show these descriptions).
DO $$
DECLARE
  col record;
BEGIN
  FOR col IN
    SELECT c.table_schema, c.table_name, v.table_name IS NOT NULL AS is_view
      FROM information_schema.columns AS c
      LEFT JOIN information_schema.views AS v ON v.table_schema = c.table_schema AND v.table_name = c.table_name
     WHERE c.table_schema IN ('mrp', 'pitwall', 'analytics') AND c.column_name = 'source'
  LOOP
    EXECUTE format('COMMENT ON COLUMN %I.%I.source IS %L', col.table_schema, col.table_name,
      CASE WHEN col.is_view THEN 'The source (one API key, one site: PITWALL_SOURCES) whose rows this row comes from; every join in the view stays within one source.'
           WHEN col.table_schema = 'pitwall' THEN 'The source (one API key, one site: PITWALL_SOURCES) this row belongs to; ''default'' without a sources file.'
           ELSE 'The source (one API key, one site: PITWALL_SOURCES) whose responses produced the row; first in the key, so each source''s rows and deletions are its own. ''default'' without a sources file.' END);
  END LOOP;
END
$$;
