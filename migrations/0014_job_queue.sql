CREATE TABLE "pitwall"."job_fires" (
	"source" text DEFAULT 'default' NOT NULL,
	"job" text NOT NULL,
	"trigger" text NOT NULL,
	"fire" text NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_fires_source_job_trigger_pk" PRIMARY KEY("source","job","trigger")
);
--> statement-breakpoint
CREATE TABLE "pitwall"."request_pace" (
	"source" text PRIMARY KEY NOT NULL,
	"next_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
COMMENT ON TABLE "pitwall"."job_fires" IS 'The latest fire of each source''s schedule (trigger cron) and start-up catch-up (trigger catch-up) put on the job queue (schema graphile_worker); every worker fires the same schedules, and the one whose write of this row wins queues the job, so N workers queue it once.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."job_fires"."job" IS 'The job: full, season or live.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."job_fires"."trigger" IS 'cron (a schedule''s fire) or catch-up (a worker''s start-up catch-up).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."job_fires"."fire" IS 'Which fire: a cron fire''s scheduled time (ISO, to the second); a catch-up''s schedule fire and the count of failed catch-ups before it. A fire not after this one is not queued again.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."job_fires"."queued_at" IS 'When the fire was put on the queue (the database''s clock).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."job_fires"."source" IS 'The source (one API key, one site) whose job was fired; default without a PITWALL_SOURCES file.';--> statement-breakpoint
COMMENT ON TABLE "pitwall"."request_pace" IS 'Each source''s request pace across every process: when its next upstream request may start. Each request reserves the next slot, so a source''s jobs and workers keep to its PITWALL_MAX_RPS together.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_pace"."source" IS 'The source (one API key, one site); default without a PITWALL_SOURCES file.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_pace"."next_at" IS 'The earliest time the source''s next upstream request may start (the database''s clock).';
