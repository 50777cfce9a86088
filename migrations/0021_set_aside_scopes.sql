ALTER TABLE "pitwall"."sync_state" ADD COLUMN "failure_stage" text;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_state" ADD COLUMN "failure_kind" text;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_state" ADD COLUMN "failed_runs" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_state" ADD COLUMN "set_aside_until" timestamp with time zone;--> statement-breakpoint
COMMENT ON COLUMN pitwall.sync_state.failure_stage IS 'Where the last failure happened: request, receive, decode, parse, check, extract or load.';--> statement-breakpoint
COMMENT ON COLUMN pitwall.sync_state.failure_kind IS 'What the last failure was: too-large, slow-body, http 404, not-json, envelope, list-key, extract, load, …';--> statement-breakpoint
COMMENT ON COLUMN pitwall.sync_state.failed_runs IS 'Runs in a row whose visit of the scope failed with failure_kind; 0 once it loads.';--> statement-breakpoint
COMMENT ON COLUMN pitwall.sync_state.set_aside_until IS 'Runs skip the scope until then: the same kind of failure in two runs in a row sets it aside for PITWALL_SET_ASIDE_HOURS. NULL = tried every run. `pitwall sync --retry-set-aside` tries it now.';
