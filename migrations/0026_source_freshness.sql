-- When each source's data was last synced, per job, where an analyst looks (the read-only role
-- reads analytics). A view runs with its owner's privileges, so the reader needs nothing on
-- pitwall for it. `still_filling` is what the status page says: no run of the source has
-- succeeded yet, so the other views return few or none of its rows until one does.
CREATE OR REPLACE VIEW analytics.source_freshness AS
SELECT s.source,
       j.job,
       ok.finished_at AS last_success_at,
       last.status AS last_run_status,
       last.started_at AS last_run_started_at,
       coalesce(last.status = 'running', false) AS running_now,
       NOT EXISTS (SELECT 1 FROM pitwall.sync_runs x WHERE x.source = s.source AND x.status = 'succeeded') AS still_filling
  FROM (SELECT source FROM pitwall.sources UNION SELECT DISTINCT source FROM pitwall.sync_runs) AS s
 CROSS JOIN (VALUES ('full', 1), ('season', 2), ('live', 3)) AS j(job, n)
  LEFT JOIN LATERAL (SELECT x.finished_at FROM pitwall.sync_runs x
                      WHERE x.source = s.source AND x.job = j.job AND x.status = 'succeeded'
                      ORDER BY x.started_at DESC LIMIT 1) AS ok ON true
  LEFT JOIN LATERAL (SELECT x.status, x.started_at FROM pitwall.sync_runs x
                      WHERE x.source = s.source AND x.job = j.job AND x.status <> 'skipped'
                      ORDER BY x.started_at DESC, x.run_id DESC LIMIT 1) AS last ON true
 ORDER BY s.source, j.n;
--> statement-breakpoint
COMMENT ON VIEW analytics.source_freshness IS 'Per source and job (full, season, live): when its data was last synced successfully, how its latest run went, and whether the source is still filling (no run of it has succeeded yet: the other views return few or none of its rows until one does).';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.source IS 'The source (one API key, one site); default without a PITWALL_SOURCES file.';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.job IS 'The job: full (everything), season (the current season), live (today''s events).';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.last_success_at IS 'When the job''s latest successful run finished: its data was current then. NULL until one has.';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.last_run_status IS 'How the job''s latest run went: running, succeeded, failed, interrupted or abandoned; NULL before any.';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.last_run_started_at IS 'When the job''s latest run started.';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.running_now IS 'Whether a run of the job is going now (as recorded: pitwall status tells a dead one).';--> statement-breakpoint
COMMENT ON COLUMN analytics.source_freshness.still_filling IS 'True while no run of the source has succeeded yet: the warehouse is still filling with it.';
