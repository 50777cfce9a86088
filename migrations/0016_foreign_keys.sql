-- Foreign keys for the joins the data guarantees (src/analytics/relationships.ts marks them
-- `enforced`; docs/warehouse.md says for each other join why the data cannot). BI tools read them
-- to offer joins and draw ER diagrams. DEFERRABLE INITIALLY DEFERRED: checked when a scope's
-- transaction commits, so the order of its writes stays free. Hand-written: drizzle-kit cannot
-- declare a deferrable key.
--
-- Added NOT VALID, then validated one by one: a warehouse whose older rows break one (none should)
-- keeps the key for every new row and a warning names it, rather than failing the migration.
ALTER TABLE mrp.schedule_events ADD CONSTRAINT schedule_events_events_fk FOREIGN KEY (source, event_id)
  REFERENCES mrp.events (source, event_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.event_classes ADD CONSTRAINT event_classes_events_fk FOREIGN KEY (source, event_id)
  REFERENCES mrp.events (source, event_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.driver_stats ADD CONSTRAINT driver_stats_drivers_fk FOREIGN KEY (source, driver_id)
  REFERENCES mrp.drivers (source, driver_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE mrp.point_standings ADD CONSTRAINT point_standings_drivers_fk FOREIGN KEY (source, driver_id)
  REFERENCES mrp.drivers (source, driver_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE analytics.point_standings_history ADD CONSTRAINT point_standings_history_point_standings_fk FOREIGN KEY (source, schedule_id, class_id, driver_id)
  REFERENCES mrp.point_standings (source, schedule_id, class_id, driver_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE pitwall.rejects ADD CONSTRAINT rejects_sync_runs_fk FOREIGN KEY (run_id)
  REFERENCES pitwall.sync_runs (run_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;--> statement-breakpoint
ALTER TABLE pitwall.sync_state ADD CONSTRAINT sync_state_sync_runs_fk FOREIGN KEY (last_run_id)
  REFERENCES pitwall.sync_runs (run_id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
--> statement-breakpoint
DO $$
DECLARE
  fk record;
BEGIN
  FOR fk IN SELECT * FROM (VALUES
    ('mrp.schedule_events', 'schedule_events_events_fk'),
    ('mrp.event_classes', 'event_classes_events_fk'),
    ('mrp.driver_stats', 'driver_stats_drivers_fk'),
    ('mrp.point_standings', 'point_standings_drivers_fk'),
    ('analytics.point_standings_history', 'point_standings_history_point_standings_fk'),
    ('pitwall.rejects', 'rejects_sync_runs_fk'),
    ('pitwall.sync_state', 'sync_state_sync_runs_fk')
  ) AS k(tbl, name)
  LOOP
    BEGIN
      EXECUTE format('ALTER TABLE %s VALIDATE CONSTRAINT %I', fk.tbl, fk.name);
    EXCEPTION WHEN foreign_key_violation THEN
      RAISE WARNING 'foreign key % on % left NOT VALID: older rows break it (new rows are checked)', fk.name, fk.tbl;
    END;
  END LOOP;
END
$$;
