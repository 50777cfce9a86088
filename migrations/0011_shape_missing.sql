ALTER TABLE "pitwall"."shape_paths" ADD COLUMN "missing_since_run_id" bigint;--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."missing_since_run_id" IS 'For a modelled field: the run whose loaded bodies all lacked it though their objects could hold it (the run warned once, in its log, summary and the status page); NULL once the field is seen again, or while it is present.';
