ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "scopes_done" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "scopes_total" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."heartbeat_at" IS 'When the running run last reported progress (every few seconds); a running run whose heartbeat is stale and whose job lock is free is marked abandoned at this time.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."scopes_done" IS 'Request scopes finished so far (loaded, unchanged, failed or refused).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."scopes_total" IS 'Request scopes known so far; the walk discovers scopes as it goes, so this grows during a run.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."status" IS 'running, succeeded, failed, skipped (another process held the job''s lock), interrupted (stopped by a signal or a shutdown) or abandoned (its process died; finished_at is its last heartbeat).';
