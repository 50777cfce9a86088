-- Descriptions of every table, view and column in mrp, pitwall and analytics, for BI tools and
-- \d+ in psql. test/analytics/comments.test.ts fails when any is missing, so a migration that
-- adds a table or column adds its comment too.

-- Columns that mean the same in every mrp table that has them; specific comments below
-- override these where a table gives a column a narrower meaning.
DO $$
DECLARE
  shared constant jsonb := jsonb_build_object(
    'raw', 'The upstream item exactly as received, so a field pitwall does not model is never lost. A nested list that becomes rows of its own is left out.',
    '_run_id', 'The sync run that last wrote this row (pitwall.sync_runs.run_id).',
    '_first_seen_at', 'When pitwall first inserted this row; never changed afterwards.',
    '_synced_at', 'When the row''s content last changed. Unchanged rows are not rewritten, so this is not "last confirmed": see pitwall.sync_state.last_success_at.',
    '_deleted_at', 'When the row disappeared upstream from a scope pitwall fetched completely; NULL while it is live. Filter on _deleted_at IS NULL for the current picture.',
    'schedule_id', 'MyRacePass schedule (season or series) id; see mrp.schedules.',
    'event_id', 'MyRacePass event (race night) id; see mrp.events.',
    'class_id', 'MyRacePass class id; see mrp.classes.',
    'driver_id', 'MyRacePass driver id; see mrp.drivers.',
    'race_number', '1-based position of the race (heat, feature) within its class at the event, in upstream order; with event_id and class_id it names a row of mrp.races.',
    'car_number', 'Car number as text: 00 is not 0, and 7x or 21A are car numbers too.',
    'class_name', 'Name of the class as the upstream gives it.',
    'class_name_override', 'The name this event or schedule gives the class instead, when it renames it.',
    'schedule_name', 'Name of the schedule, e.g. 2026 Weekly Points Series.',
    'schedule_desc', 'Free-text description of the schedule.',
    'schedule_year', 'Year (season) of the schedule.',
    'schedule_count', 'How many schedules the upstream lists for this year.',
    'year', 'The season year.',
    'event_date', 'Date and time of the event as the upstream states it, without a time zone (local to the track).',
    'event_name', 'Name of the event, e.g. Fireworks Night.',
    'race_name', 'Name of the race, e.g. Heat 1 or A-Main.',
    'points_as_of', 'The date the standings are stated as of, as the upstream gives it.',
    'wins', 'Feature wins (DQ and DNS excluded).',
    'top5', 'Feature finishes in the top 5 (DQ and DNS excluded).',
    'top10', 'Feature finishes in the top 10 (DQ and DNS excluded).'
  );
  col record;
BEGIN
  FOR col IN
    SELECT c.table_name, c.column_name FROM information_schema.columns AS c
     WHERE c.table_schema = 'mrp' AND shared ? c.column_name
  LOOP
    EXECUTE format('COMMENT ON COLUMN mrp.%I.%I IS %L', col.table_name, col.column_name, shared ->> col.column_name);
  END LOOP;
END
$$;
--> statement-breakpoint
COMMENT ON SCHEMA mrp IS 'The warehouse: one table per MyRacePass v2 entity, typed columns plus raw JSON and bookkeeping; rows are never hard-deleted (see _deleted_at).';
COMMENT ON SCHEMA pitwall IS 'Pitwall''s own bookkeeping: sync runs, the state of every request scope, rejected items.';
COMMENT ON SCHEMA analytics IS 'Views for analysts over live mrp rows, and the standings history kept by triggers.';

COMMENT ON TABLE mrp.schedule_years IS 'Years that have schedules (/v2/schedules/years/).';
COMMENT ON TABLE mrp.schedules IS 'Schedules: seasons and series, with their year and event count (/v2/schedules/).';
COMMENT ON COLUMN mrp.schedules.event_count IS 'How many events the upstream says the schedule has.';
COMMENT ON TABLE mrp.events IS 'Events (race nights): date, name, description (/v2/schedules/events/). An event may count toward two schedules; see mrp.schedule_events.';
COMMENT ON COLUMN mrp.events.event_description IS 'Free-text description of the event.';
COMMENT ON TABLE mrp.schedule_events IS 'Which events count toward which schedules (/v2/schedules/events/).';
COMMENT ON TABLE mrp.event_classes IS 'The classes run at each event, with the event''s own name for the class when it renames it.';
COMMENT ON TABLE mrp.classes IS 'Every class seen anywhere upstream.';
COMMENT ON TABLE mrp.drivers IS 'Every driver seen anywhere upstream (results, lineups, entry lists, standings, stats).';
COMMENT ON COLUMN mrp.drivers.first_name IS 'First name, accents and apostrophes kept.';
COMMENT ON COLUMN mrp.drivers.last_name IS 'Last name, accents and apostrophes kept.';
COMMENT ON COLUMN mrp.drivers.suffix IS 'Name suffix such as Jr. or III; NULL when none.';
COMMENT ON COLUMN mrp.drivers.city IS 'Home town.';
COMMENT ON COLUMN mrp.drivers.state IS 'Home state or province.';
COMMENT ON COLUMN mrp.drivers.country IS 'Home country.';
COMMENT ON TABLE mrp.races IS 'Races (heats and features) of each class at each event (/v2/schedules/results/).';
COMMENT ON COLUMN mrp.races.race_laps IS 'Scheduled laps.';
COMMENT ON TABLE mrp.results IS 'One row per car per race (/v2/schedules/results/). analytics.event_results adds names and schedules.';
COMMENT ON COLUMN mrp.results.row_index IS '1-based position of the row within the race''s results list, in upstream order; part of the key because driver and finish can repeat or be missing.';
COMMENT ON COLUMN mrp.results.driver_name IS 'The driver''s name as printed in the results row.';
COMMENT ON COLUMN mrp.results.finish IS 'Finishing position (DNF cars are classified by how far they got, DNS and DQ after them).';
COMMENT ON COLUMN mrp.results.start IS 'Starting position.';
COMMENT ON COLUMN mrp.results.dnf IS 'Did not finish.';
COMMENT ON COLUMN mrp.results.dns IS 'Did not start (keeps its starting position, classified last).';
COMMENT ON COLUMN mrp.results.dq IS 'Disqualified (classified after everyone).';
COMMENT ON TABLE mrp.lineups IS 'Starting order of each race (/v2/schedules/lineups/).';
COMMENT ON COLUMN mrp.lineups.start_position IS 'Starting position, 1-based.';
COMMENT ON TABLE mrp.entry_list IS 'Pre-entries of each class at each event, with car numbers (/v2/schedules/entryList/).';
COMMENT ON TABLE mrp.driver_passes IS 'Races started and cars passed per driver, class and event (/v2/schedules/driverPasses/).';
COMMENT ON COLUMN mrp.driver_passes.races IS 'Races the driver started at the event in this class.';
COMMENT ON COLUMN mrp.driver_passes.cars_passed IS 'Cars passed over those races (start minus finish, summed).';
COMMENT ON TABLE mrp.results_feed IS 'The latest-results feed as it stands now: feature results of recent events (/v2/schedules/results/feed/).';
COMMENT ON COLUMN mrp.results_feed.finish IS 'Finishing position in the feature.';
COMMENT ON TABLE mrp.driver_stats IS 'Season statistics per driver, class and year from feature races (/v2/schedules/driverStats/).';
COMMENT ON COLUMN mrp.driver_stats.starts IS 'Feature starts (DNS excluded).';
COMMENT ON COLUMN mrp.driver_stats.avg_start IS 'Average starting position over started features.';
COMMENT ON COLUMN mrp.driver_stats.avg_finish IS 'Average finishing position over started features.';
COMMENT ON TABLE mrp.point_years IS 'Years that have points standings (/v2/points/years/).';
COMMENT ON COLUMN mrp.point_years.schedule_count IS 'How many points schedules the upstream lists for this year.';
COMMENT ON TABLE mrp.point_schedules IS 'Schedules that carry points standings (/v2/points/schedules/).';
COMMENT ON COLUMN mrp.point_schedules.class_count IS 'How many classes have standings in this schedule.';
COMMENT ON TABLE mrp.point_classes IS 'The classes with standings in each points schedule, with their as-of date (/v2/points/classes/).';
COMMENT ON TABLE mrp.point_standings IS 'Points standings as they stand now (/v2/points/). Every change is kept in analytics.point_standings_history.';
COMMENT ON COLUMN mrp.point_standings.position IS 'Position in the standings, 1 = leader.';
COMMENT ON COLUMN mrp.point_standings.point_total IS 'Points (numeric: half points exist).';
COMMENT ON COLUMN mrp.point_standings.features IS 'Feature starts (DNS excluded).';

COMMENT ON TABLE pitwall.sync_runs IS 'One row per run of a job.';
COMMENT ON COLUMN pitwall.sync_runs.run_id IS 'Run id; mrp rows name the run that last wrote them in _run_id.';
COMMENT ON COLUMN pitwall.sync_runs.job IS 'The job: full, season or live.';
COMMENT ON COLUMN pitwall.sync_runs.trigger IS 'What started the run: manual (pitwall sync) or cron (the worker).';
COMMENT ON COLUMN pitwall.sync_runs.status IS 'running, succeeded, failed, skipped (another process held the job''s lock), interrupted or abandoned (its process died).';
COMMENT ON COLUMN pitwall.sync_runs.started_at IS 'When the run started.';
COMMENT ON COLUMN pitwall.sync_runs.finished_at IS 'When the run ended; NULL while running.';
COMMENT ON COLUMN pitwall.sync_runs.requests IS 'Upstream requests made, retries included.';
COMMENT ON COLUMN pitwall.sync_runs.retries IS 'Upstream requests that were retries.';
COMMENT ON COLUMN pitwall.sync_runs.rows_inserted IS 'Rows inserted, all tables.';
COMMENT ON COLUMN pitwall.sync_runs.rows_updated IS 'Rows whose content changed, all tables.';
COMMENT ON COLUMN pitwall.sync_runs.rows_unchanged IS 'Rows received again unchanged, all tables.';
COMMENT ON COLUMN pitwall.sync_runs.rows_deleted IS 'Rows marked deleted (_deleted_at), all tables.';
COMMENT ON COLUMN pitwall.sync_runs.rows_rejected IS 'Items that failed validation (see pitwall.rejects).';
COMMENT ON COLUMN pitwall.sync_runs.unknown_fields IS 'Fields pitwall does not model, seen in this run (kept in raw).';
COMMENT ON COLUMN pitwall.sync_runs.summary IS 'Per-table counts, as printed by pitwall sync --json.';
COMMENT ON COLUMN pitwall.sync_runs.error IS 'Why the run failed or was interrupted.';
COMMENT ON COLUMN pitwall.sync_runs.host IS 'Host name of the process that ran it.';
COMMENT ON COLUMN pitwall.sync_runs.pid IS 'Process id that ran it.';
COMMENT ON TABLE pitwall.sync_state IS 'One row per request scope: an endpoint and its query parameters (never the key).';
COMMENT ON COLUMN pitwall.sync_state.endpoint IS 'Endpoint name, as in src/sync/endpoints.ts.';
COMMENT ON COLUMN pitwall.sync_state.params IS 'Canonical query string of the scope, without the key.';
COMMENT ON COLUMN pitwall.sync_state.last_attempt_at IS 'When the scope was last requested.';
COMMENT ON COLUMN pitwall.sync_state.last_success_at IS 'When the scope was last fetched and loaded (or confirmed unchanged).';
COMMENT ON COLUMN pitwall.sync_state.status IS 'ok, invalid (the upstream answered RequestValid 0) or error.';
COMMENT ON COLUMN pitwall.sync_state.response_hash IS 'Hash of the last good response; an identical response is not processed again.';
COMMENT ON COLUMN pitwall.sync_state.item_count IS 'Items in the last good response.';
COMMENT ON COLUMN pitwall.sync_state.last_error IS 'The last failure, when status is not ok.';
COMMENT ON COLUMN pitwall.sync_state.last_run_id IS 'The run that last touched the scope.';
COMMENT ON TABLE pitwall.rejects IS 'Items or whole bodies that failed validation, with the reason.';
COMMENT ON COLUMN pitwall.rejects.reject_id IS 'Reject id.';
COMMENT ON COLUMN pitwall.rejects.run_id IS 'The run that received it.';
COMMENT ON COLUMN pitwall.rejects.endpoint IS 'Endpoint name.';
COMMENT ON COLUMN pitwall.rejects.params IS 'Canonical query string of the scope, without the key.';
COMMENT ON COLUMN pitwall.rejects.reason IS 'Why it was rejected (the validation issues).';
COMMENT ON COLUMN pitwall.rejects.payload IS 'The rejected item, when it was JSON.';
COMMENT ON COLUMN pitwall.rejects.payload_snippet IS 'A bounded snippet of a body that was not readable JSON.';
COMMENT ON COLUMN pitwall.rejects.created_at IS 'When it was rejected.';

COMMENT ON TABLE analytics.point_standings_history IS 'Every version of every standings row pitwall has seen (type-2 history), written by triggers on mrp.point_standings only when a standing really changes. It starts when pitwall first loaded the standings.';
COMMENT ON COLUMN analytics.point_standings_history.history_id IS 'Version id.';
COMMENT ON COLUMN analytics.point_standings_history.schedule_id IS 'Points schedule id; see mrp.point_schedules.';
COMMENT ON COLUMN analytics.point_standings_history.class_id IS 'Class id; see mrp.classes.';
COMMENT ON COLUMN analytics.point_standings_history.driver_id IS 'Driver id; see mrp.drivers.';
COMMENT ON COLUMN analytics.point_standings_history.position IS 'Position in the standings in this version.';
COMMENT ON COLUMN analytics.point_standings_history.car_number IS 'Car number in this version.';
COMMENT ON COLUMN analytics.point_standings_history.point_total IS 'Points in this version.';
COMMENT ON COLUMN analytics.point_standings_history.wins IS 'Feature wins in this version.';
COMMENT ON COLUMN analytics.point_standings_history.top5 IS 'Feature top 5s in this version.';
COMMENT ON COLUMN analytics.point_standings_history.top10 IS 'Feature top 10s in this version.';
COMMENT ON COLUMN analytics.point_standings_history.features IS 'Feature starts in this version.';
COMMENT ON COLUMN analytics.point_standings_history.points_as_of IS 'The upstream''s as-of date of this version.';
COMMENT ON COLUMN analytics.point_standings_history.valid_from IS 'When pitwall loaded this version.';
COMMENT ON COLUMN analytics.point_standings_history.valid_to IS 'When it was replaced by a change or the standing was marked deleted; NULL while current.';
COMMENT ON COLUMN analytics.point_standings_history.is_current IS 'Whether this is the version in mrp.point_standings now (valid_to IS NULL).';
COMMENT ON COLUMN analytics.point_standings_history.run_id IS 'The sync run that wrote this version.';

COMMENT ON VIEW analytics.events_calendar IS 'Live events with the schedules they count toward, their classes, and whether results are in.';
COMMENT ON COLUMN analytics.events_calendar.event_id IS 'Event id.';
COMMENT ON COLUMN analytics.events_calendar.event_date IS 'Date and time as the upstream states it (local to the track).';
COMMENT ON COLUMN analytics.events_calendar.event_name IS 'Event name.';
COMMENT ON COLUMN analytics.events_calendar.event_description IS 'Event description.';
COMMENT ON COLUMN analytics.events_calendar.schedule_ids IS 'Ids of the schedules the event counts toward (often one, sometimes two).';
COMMENT ON COLUMN analytics.events_calendar.schedule_names IS 'Names of those schedules, comma-separated.';
COMMENT ON COLUMN analytics.events_calendar.class_count IS 'Classes on the card.';
COMMENT ON COLUMN analytics.events_calendar.class_names IS 'Their names, comma-separated (the event''s own name for a class when it renames it).';
COMMENT ON COLUMN analytics.events_calendar.classes_with_results IS 'Classes that have results loaded.';
COMMENT ON COLUMN analytics.events_calendar.result_rows IS 'Result rows loaded (all races).';
COMMENT ON COLUMN analytics.events_calendar.has_results IS 'Whether any results are in.';

COMMENT ON VIEW analytics.event_results IS 'One row per car per race of live events: event, schedules, class, race, driver, start, finish, positions gained, DNF/DNS/DQ.';
COMMENT ON COLUMN analytics.event_results.event_id IS 'Event id.';
COMMENT ON COLUMN analytics.event_results.event_date IS 'Event date and time (local to the track).';
COMMENT ON COLUMN analytics.event_results.event_name IS 'Event name.';
COMMENT ON COLUMN analytics.event_results.schedule_ids IS 'Ids of the schedules the event counts toward.';
COMMENT ON COLUMN analytics.event_results.schedule_names IS 'Names of those schedules, comma-separated.';
COMMENT ON COLUMN analytics.event_results.class_id IS 'Class id.';
COMMENT ON COLUMN analytics.event_results.class_name IS 'Class name (mrp.classes), the same at every event: group by this.';
COMMENT ON COLUMN analytics.event_results.event_class_name IS 'The name this event gave the class (it may rename it, e.g. for a special).';
COMMENT ON COLUMN analytics.event_results.race_number IS 'Race number within the class at the event, in upstream order.';
COMMENT ON COLUMN analytics.event_results.race_name IS 'Race name, e.g. Heat 1, A-Main.';
COMMENT ON COLUMN analytics.event_results.is_feature IS 'Whether this is the feature: the last race of the class at the event.';
COMMENT ON COLUMN analytics.event_results.row_index IS 'Row within the race''s results, in upstream order.';
COMMENT ON COLUMN analytics.event_results.driver_id IS 'Driver id.';
COMMENT ON COLUMN analytics.event_results.driver_name IS 'Driver name from mrp.drivers (first, last, suffix), else as printed in the results.';
COMMENT ON COLUMN analytics.event_results.car_number IS 'Car number (text).';
COMMENT ON COLUMN analytics.event_results.start IS 'Starting position.';
COMMENT ON COLUMN analytics.event_results.finish IS 'Finishing position.';
COMMENT ON COLUMN analytics.event_results.positions_gained IS 'start - finish; NULL for a DNS or DQ, whose finish says nothing about the race they ran.';
COMMENT ON COLUMN analytics.event_results.dnf IS 'Did not finish.';
COMMENT ON COLUMN analytics.event_results.dns IS 'Did not start.';
COMMENT ON COLUMN analytics.event_results.dq IS 'Disqualified.';

COMMENT ON VIEW analytics.driver_season_summary IS 'Per driver, schedule and class, from feature races: starts, wins, top 5s, top 10s, average start and finish, positions gained, DNFs. An event in two schedules counts in both.';
COMMENT ON COLUMN analytics.driver_season_summary.driver_id IS 'Driver id.';
COMMENT ON COLUMN analytics.driver_season_summary.driver_name IS 'Driver name.';
COMMENT ON COLUMN analytics.driver_season_summary.schedule_id IS 'Schedule id.';
COMMENT ON COLUMN analytics.driver_season_summary.schedule_name IS 'Schedule name.';
COMMENT ON COLUMN analytics.driver_season_summary.schedule_year IS 'Schedule year.';
COMMENT ON COLUMN analytics.driver_season_summary.class_id IS 'Class id.';
COMMENT ON COLUMN analytics.driver_season_summary.class_name IS 'Class name.';
COMMENT ON COLUMN analytics.driver_season_summary.starts IS 'Feature starts (DNS excluded).';
COMMENT ON COLUMN analytics.driver_season_summary.wins IS 'Feature wins (DQ excluded).';
COMMENT ON COLUMN analytics.driver_season_summary.top5 IS 'Feature top 5s (DQ excluded).';
COMMENT ON COLUMN analytics.driver_season_summary.top10 IS 'Feature top 10s (DQ excluded).';
COMMENT ON COLUMN analytics.driver_season_summary.avg_start IS 'Average feature starting position, 2 decimals.';
COMMENT ON COLUMN analytics.driver_season_summary.avg_finish IS 'Average feature finishing position, 2 decimals.';
COMMENT ON COLUMN analytics.driver_season_summary.positions_gained IS 'Sum of start - finish over features (DNS and DQ left out).';
COMMENT ON COLUMN analytics.driver_season_summary.dnfs IS 'Features not finished.';

COMMENT ON VIEW analytics.current_standings IS 'Points standings as they stand now, with names and the gap to the leader and to the car ahead.';
COMMENT ON COLUMN analytics.current_standings.schedule_id IS 'Points schedule id.';
COMMENT ON COLUMN analytics.current_standings.schedule_name IS 'Schedule name.';
COMMENT ON COLUMN analytics.current_standings.schedule_year IS 'Schedule year.';
COMMENT ON COLUMN analytics.current_standings.latest_season IS 'Whether the schedule belongs to the latest year that has standings.';
COMMENT ON COLUMN analytics.current_standings.class_id IS 'Class id.';
COMMENT ON COLUMN analytics.current_standings.class_name IS 'Class name (the schedule''s own name for it when it renames it).';
COMMENT ON COLUMN analytics.current_standings.position IS 'Position, 1 = leader.';
COMMENT ON COLUMN analytics.current_standings.driver_id IS 'Driver id.';
COMMENT ON COLUMN analytics.current_standings.driver_name IS 'Driver name.';
COMMENT ON COLUMN analytics.current_standings.car_number IS 'Car number (text).';
COMMENT ON COLUMN analytics.current_standings.point_total IS 'Points.';
COMMENT ON COLUMN analytics.current_standings.gap_to_leader IS 'Points behind the leader (0 for the leader).';
COMMENT ON COLUMN analytics.current_standings.gap_to_next IS 'Points behind the driver one position up; NULL for the leader.';
COMMENT ON COLUMN analytics.current_standings.wins IS 'Feature wins.';
COMMENT ON COLUMN analytics.current_standings.top5 IS 'Feature top 5s.';
COMMENT ON COLUMN analytics.current_standings.top10 IS 'Feature top 10s.';
COMMENT ON COLUMN analytics.current_standings.features IS 'Feature starts.';
COMMENT ON COLUMN analytics.current_standings.points_as_of IS 'The upstream''s as-of date of the standings.';

COMMENT ON VIEW analytics.standings_history IS 'How every driver''s position and points moved through a season: one row per version of a standing, with the change from the version before. Starts when pitwall first loaded the standings.';
COMMENT ON COLUMN analytics.standings_history.schedule_id IS 'Points schedule id.';
COMMENT ON COLUMN analytics.standings_history.schedule_name IS 'Schedule name.';
COMMENT ON COLUMN analytics.standings_history.schedule_year IS 'Schedule year.';
COMMENT ON COLUMN analytics.standings_history.class_id IS 'Class id.';
COMMENT ON COLUMN analytics.standings_history.class_name IS 'Class name.';
COMMENT ON COLUMN analytics.standings_history.driver_id IS 'Driver id.';
COMMENT ON COLUMN analytics.standings_history.driver_name IS 'Driver name.';
COMMENT ON COLUMN analytics.standings_history.version IS '1 for the first version pitwall saw, then 2, 3, ...';
COMMENT ON COLUMN analytics.standings_history.position IS 'Position in this version.';
COMMENT ON COLUMN analytics.standings_history.positions_gained IS 'Places gained since the version before (positive = moved up); NULL for the first.';
COMMENT ON COLUMN analytics.standings_history.point_total IS 'Points in this version.';
COMMENT ON COLUMN analytics.standings_history.points_gained IS 'Points gained since the version before; NULL for the first.';
COMMENT ON COLUMN analytics.standings_history.wins IS 'Feature wins in this version.';
COMMENT ON COLUMN analytics.standings_history.top5 IS 'Feature top 5s in this version.';
COMMENT ON COLUMN analytics.standings_history.top10 IS 'Feature top 10s in this version.';
COMMENT ON COLUMN analytics.standings_history.features IS 'Feature starts in this version.';
COMMENT ON COLUMN analytics.standings_history.car_number IS 'Car number in this version.';
COMMENT ON COLUMN analytics.standings_history.points_as_of IS 'The upstream''s as-of date of this version.';
COMMENT ON COLUMN analytics.standings_history.valid_from IS 'When pitwall loaded this version.';
COMMENT ON COLUMN analytics.standings_history.valid_to IS 'When it was replaced; NULL while current.';
COMMENT ON COLUMN analytics.standings_history.is_current IS 'Whether this is the version in mrp.point_standings now.';
