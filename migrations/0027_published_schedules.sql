ALTER TABLE "pitwall"."sources" ADD COLUMN "schedules" jsonb;--> statement-breakpoint
ALTER TABLE "pitwall"."sources" ADD COLUMN "scheduled_by" text;--> statement-breakpoint
ALTER TABLE "pitwall"."sources" ADD COLUMN "scheduled_at" timestamp with time zone;--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."schedules" IS 'The cron schedules the worker that owns the source runs, per job, and their time zone ({"live": ..., "season": ..., "full": ..., "timezone": ...}), written when it took the source; pitwall status reads next runs from them. NULL until a worker has owned it.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."scheduled_by" IS 'The worker (pid@host) that wrote schedules: they are the ones running only while it owns the source.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."scheduled_at" IS 'When scheduled_by took the source and wrote its schedules.';
