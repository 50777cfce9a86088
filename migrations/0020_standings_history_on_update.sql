-- The standings history closes current versions only for standings that were updated. A standing
-- inserted now has no version on record: history rows are written by this trigger alone, after
-- their standing (point_standings_history_point_standings_fk), and a standing is never deleted, so
-- a change or a deletion mark always reaches mrp.point_standings as an UPDATE. On a first sync
-- every standing is an INSERT, and the UPDATE below was planned against a history table that has
-- grown since it was last analysed: its estimate of current versions (a default 0.5 % for
-- `valid_to IS NULL`) made it read every current version once per statement, the largest share
-- of the standings' cost (docs/performance.md).
CREATE OR REPLACE FUNCTION analytics.record_point_standings_history() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  -- Close the current version of each standing that changed or was marked deleted. The
  -- comparison is with the version on record, not with OLD, so a write that changes nothing
  -- (or only bookkeeping) leaves the history alone.
  IF TG_OP = 'UPDATE' THEN
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
  END IF;
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
