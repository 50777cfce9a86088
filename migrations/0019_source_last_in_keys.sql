-- Every mrp key, and the standings history's, ends with `source` instead of starting with it. A
-- key that starts with the same text in every row makes each comparison in the index begin with a
-- text comparison that decides nothing: on a first sync of one source (medium world), PostgreSQL
-- spent 19 % more CPU than with the keys before sources existed, and 7 % more with `source` last
-- (docs/performance.md). Every lookup names every key column, so the order changes no plan.
--
-- The foreign keys that reference these keys depend on their indexes: they are dropped first and
-- declared again at the end, NOT VALID, then validated (a warehouse whose older rows break one
-- keeps it for new rows, with a warning, as in 0016).
--
-- sync_state -> sync_runs goes for good: every scope's commit checked it by locking its run's one
-- row, from each of the run's concurrent transactions and beside the heartbeat's updates of that
-- row, which cost more than the join is worth to anyone (docs/performance.md, "Foreign keys").
ALTER TABLE pitwall.sync_state DROP CONSTRAINT IF EXISTS sync_state_sync_runs_fk;--> statement-breakpoint
ALTER TABLE mrp.schedule_events DROP CONSTRAINT IF EXISTS schedule_events_events_fk;--> statement-breakpoint
ALTER TABLE mrp.event_classes DROP CONSTRAINT IF EXISTS event_classes_events_fk;--> statement-breakpoint
ALTER TABLE mrp.driver_stats DROP CONSTRAINT IF EXISTS driver_stats_drivers_fk;--> statement-breakpoint
ALTER TABLE mrp.point_standings DROP CONSTRAINT IF EXISTS point_standings_drivers_fk;--> statement-breakpoint
ALTER TABLE analytics.point_standings_history DROP CONSTRAINT IF EXISTS point_standings_history_point_standings_fk;--> statement-breakpoint
DROP INDEX "analytics"."point_standings_history_current_key";--> statement-breakpoint
DROP INDEX "analytics"."point_standings_history_key_idx";--> statement-breakpoint
ALTER TABLE "mrp"."classes" DROP CONSTRAINT "classes_source_class_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."driver_passes" DROP CONSTRAINT "driver_passes_source_event_id_class_id_driver_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."driver_stats" DROP CONSTRAINT "driver_stats_source_driver_id_class_id_year_pk";--> statement-breakpoint
ALTER TABLE "mrp"."drivers" DROP CONSTRAINT "drivers_source_driver_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."entry_list" DROP CONSTRAINT "entry_list_source_event_id_class_id_driver_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."event_classes" DROP CONSTRAINT "event_classes_source_event_id_class_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."events" DROP CONSTRAINT "events_source_event_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."lineups" DROP CONSTRAINT "lineups_source_event_id_class_id_race_number_start_position_pk";--> statement-breakpoint
ALTER TABLE "mrp"."point_classes" DROP CONSTRAINT "point_classes_source_schedule_id_class_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."point_schedules" DROP CONSTRAINT "point_schedules_source_schedule_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."point_standings" DROP CONSTRAINT "point_standings_source_schedule_id_class_id_driver_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."point_years" DROP CONSTRAINT "point_years_source_year_pk";--> statement-breakpoint
ALTER TABLE "mrp"."races" DROP CONSTRAINT "races_source_event_id_class_id_race_number_pk";--> statement-breakpoint
ALTER TABLE "mrp"."results" DROP CONSTRAINT "results_source_event_id_class_id_race_number_row_index_pk";--> statement-breakpoint
ALTER TABLE "mrp"."results_feed" DROP CONSTRAINT "results_feed_source_event_id_class_id_finish_pk";--> statement-breakpoint
ALTER TABLE "mrp"."schedule_events" DROP CONSTRAINT "schedule_events_source_schedule_id_event_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."schedule_years" DROP CONSTRAINT "schedule_years_source_year_pk";--> statement-breakpoint
ALTER TABLE "mrp"."schedules" DROP CONSTRAINT "schedules_source_schedule_id_pk";--> statement-breakpoint
ALTER TABLE "mrp"."classes" ADD CONSTRAINT "classes_class_id_source_pk" PRIMARY KEY("class_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."driver_passes" ADD CONSTRAINT "driver_passes_event_id_class_id_driver_id_source_pk" PRIMARY KEY("event_id","class_id","driver_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."driver_stats" ADD CONSTRAINT "driver_stats_driver_id_class_id_year_source_pk" PRIMARY KEY("driver_id","class_id","year","source");--> statement-breakpoint
ALTER TABLE "mrp"."drivers" ADD CONSTRAINT "drivers_driver_id_source_pk" PRIMARY KEY("driver_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."entry_list" ADD CONSTRAINT "entry_list_event_id_class_id_driver_id_source_pk" PRIMARY KEY("event_id","class_id","driver_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."event_classes" ADD CONSTRAINT "event_classes_event_id_class_id_source_pk" PRIMARY KEY("event_id","class_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."events" ADD CONSTRAINT "events_event_id_source_pk" PRIMARY KEY("event_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."lineups" ADD CONSTRAINT "lineups_event_id_class_id_race_number_start_position_source_pk" PRIMARY KEY("event_id","class_id","race_number","start_position","source");--> statement-breakpoint
ALTER TABLE "mrp"."point_classes" ADD CONSTRAINT "point_classes_schedule_id_class_id_source_pk" PRIMARY KEY("schedule_id","class_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."point_schedules" ADD CONSTRAINT "point_schedules_schedule_id_source_pk" PRIMARY KEY("schedule_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."point_standings" ADD CONSTRAINT "point_standings_schedule_id_class_id_driver_id_source_pk" PRIMARY KEY("schedule_id","class_id","driver_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."point_years" ADD CONSTRAINT "point_years_year_source_pk" PRIMARY KEY("year","source");--> statement-breakpoint
ALTER TABLE "mrp"."races" ADD CONSTRAINT "races_event_id_class_id_race_number_source_pk" PRIMARY KEY("event_id","class_id","race_number","source");--> statement-breakpoint
ALTER TABLE "mrp"."results" ADD CONSTRAINT "results_event_id_class_id_race_number_row_index_source_pk" PRIMARY KEY("event_id","class_id","race_number","row_index","source");--> statement-breakpoint
ALTER TABLE "mrp"."results_feed" ADD CONSTRAINT "results_feed_event_id_class_id_finish_source_pk" PRIMARY KEY("event_id","class_id","finish","source");--> statement-breakpoint
ALTER TABLE "mrp"."schedule_events" ADD CONSTRAINT "schedule_events_schedule_id_event_id_source_pk" PRIMARY KEY("schedule_id","event_id","source");--> statement-breakpoint
ALTER TABLE "mrp"."schedule_years" ADD CONSTRAINT "schedule_years_year_source_pk" PRIMARY KEY("year","source");--> statement-breakpoint
ALTER TABLE "mrp"."schedules" ADD CONSTRAINT "schedules_schedule_id_source_pk" PRIMARY KEY("schedule_id","source");--> statement-breakpoint
CREATE UNIQUE INDEX "point_standings_history_current_key" ON "analytics"."point_standings_history" USING btree ("schedule_id","class_id","driver_id","source") WHERE valid_to IS NULL;--> statement-breakpoint
CREATE INDEX "point_standings_history_key_idx" ON "analytics"."point_standings_history" USING btree ("schedule_id","class_id","driver_id","source","valid_from");--> statement-breakpoint
ALTER TABLE mrp.schedule_events ADD CONSTRAINT schedule_events_events_fk FOREIGN KEY (event_id, source)
  REFERENCES mrp.events (event_id, source) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.event_classes ADD CONSTRAINT event_classes_events_fk FOREIGN KEY (event_id, source)
  REFERENCES mrp.events (event_id, source) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.driver_stats ADD CONSTRAINT driver_stats_drivers_fk FOREIGN KEY (driver_id, source)
  REFERENCES mrp.drivers (driver_id, source) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.point_standings ADD CONSTRAINT point_standings_drivers_fk FOREIGN KEY (driver_id, source)
  REFERENCES mrp.drivers (driver_id, source) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE analytics.point_standings_history ADD CONSTRAINT point_standings_history_point_standings_fk FOREIGN KEY (schedule_id, class_id, driver_id, source)
  REFERENCES mrp.point_standings (schedule_id, class_id, driver_id, source) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
DO $$
DECLARE
  fk record;
BEGIN
  FOR fk IN SELECT conrelid::regclass AS tbl, conname AS name FROM pg_constraint
             WHERE contype = 'f' AND NOT convalidated AND conname IN (
               'schedule_events_events_fk', 'event_classes_events_fk', 'driver_stats_drivers_fk',
               'point_standings_drivers_fk', 'point_standings_history_point_standings_fk')
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s VALIDATE CONSTRAINT %I', fk.tbl, fk.name);
    EXCEPTION WHEN foreign_key_violation THEN
      RAISE WARNING 'foreign key % on % left NOT VALID: older rows break it (new rows are checked)', fk.name, fk.tbl;
    END;
  END LOOP;
END
$$;
