-- Standings history triggers whose cost does not depend on the planner's statistics.
--
-- PL/pgSQL caches a plan per statement for the life of a connection. During a first sync the
-- history table grows from empty to thousands of rows on connections that live through the
-- whole run, so the cached plans were made for an empty table: the NOT EXISTS anti-join
-- rescanned every current version for each standing written (~70 ms per 36-row statement at
-- 10k versions, growing with the table). Now the INSERT lets the partial unique index decide
-- (ON CONFLICT ... DO NOTHING: one index probe per row, whatever the statistics say), and the
-- UPDATE is planned afresh on each call (EXECUTE), with the table's current size.
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
       AND h.schedule_id = n.schedule_id AND h.class_id = n.class_id AND h.driver_id = n.driver_id
       AND (n._deleted_at IS NOT NULL
            OR (h.position, h.car_number, h.point_total, h.wins, h.top5, h.top10, h.features, h.points_as_of)
               IS DISTINCT FROM (n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features, n.points_as_of))
  $sql$;
  -- Open a version for each live standing that has no current one: new, changed, or back.
  INSERT INTO analytics.point_standings_history
         (schedule_id, class_id, driver_id, position, car_number, point_total, wins, top5, top10, features, points_as_of, valid_from, run_id)
  SELECT n.schedule_id, n.class_id, n.driver_id, n.position, n.car_number, n.point_total, n.wins, n.top5, n.top10, n.features,
         n.points_as_of, now(), n._run_id
    FROM written AS n
   WHERE n._deleted_at IS NULL
  ON CONFLICT (schedule_id, class_id, driver_id) WHERE valid_to IS NULL DO NOTHING;
  RETURN NULL;
END
$$;
