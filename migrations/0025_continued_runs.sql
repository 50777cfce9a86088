ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "walk_done" boolean;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "continues_run_id" bigint;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "requests_before" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."walk_done" IS 'Whether the run''s walk reached its end: false while it runs and when it stopped before (the next run of its job then continues it), NULL for a run that never walked or was recorded before runs were continued.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."continues_run_id" IS 'The stopped run of the same job and source this one continues, asking only for the scopes it had not finished; NULL for a run started afresh.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."requests_before" IS 'Upstream requests of the earlier parts this run continues (back to the part that started afresh); 0 for a run started afresh.';
