ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "shapes_file" text;--> statement-breakpoint
ALTER TABLE "pitwall"."sync_runs" ADD COLUMN "shapes_digest" text;--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."shapes_file" IS 'The PITWALL_SHAPES file (as the path was given) whose aliases and coercions adjusted the declared shapes for this run; NULL when none was set.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sync_runs"."shapes_digest" IS 'SHA-256 (hex) of that file''s bytes, so two runs can be told to have read the same file or not.';
