CREATE SCHEMA "mrp";
--> statement-breakpoint
CREATE SCHEMA "pitwall";
--> statement-breakpoint
CREATE TABLE "mrp"."classes" (
	"class_id" integer PRIMARY KEY NOT NULL,
	"class_name" text,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."driver_passes" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"driver_id" integer NOT NULL,
	"car_number" text,
	"races" integer,
	"cars_passed" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "driver_passes_event_id_class_id_driver_id_pk" PRIMARY KEY("event_id","class_id","driver_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."driver_stats" (
	"driver_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"year" integer NOT NULL,
	"starts" integer,
	"wins" integer,
	"top5" integer,
	"top10" integer,
	"avg_start" numeric,
	"avg_finish" numeric,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "driver_stats_driver_id_class_id_year_pk" PRIMARY KEY("driver_id","class_id","year")
);
--> statement-breakpoint
CREATE TABLE "mrp"."drivers" (
	"driver_id" integer PRIMARY KEY NOT NULL,
	"first_name" text,
	"last_name" text,
	"suffix" text,
	"city" text,
	"state" text,
	"country" text,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."entry_list" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"driver_id" integer NOT NULL,
	"car_number" text,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "entry_list_event_id_class_id_driver_id_pk" PRIMARY KEY("event_id","class_id","driver_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."event_classes" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"class_name" text,
	"class_name_override" text,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "event_classes_event_id_class_id_pk" PRIMARY KEY("event_id","class_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."events" (
	"event_id" integer PRIMARY KEY NOT NULL,
	"event_date" timestamp,
	"event_name" text,
	"event_description" text,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."lineups" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"race_number" integer NOT NULL,
	"start_position" integer NOT NULL,
	"race_name" text,
	"car_number" text,
	"driver_id" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "lineups_event_id_class_id_race_number_start_position_pk" PRIMARY KEY("event_id","class_id","race_number","start_position")
);
--> statement-breakpoint
CREATE TABLE "mrp"."point_classes" (
	"schedule_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"class_name" text,
	"class_name_override" text,
	"points_as_of" timestamp,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "point_classes_schedule_id_class_id_pk" PRIMARY KEY("schedule_id","class_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."point_schedules" (
	"schedule_id" integer PRIMARY KEY NOT NULL,
	"schedule_name" text,
	"schedule_desc" text,
	"schedule_year" integer,
	"class_count" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."point_standings" (
	"schedule_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"driver_id" integer NOT NULL,
	"position" integer,
	"car_number" text,
	"point_total" numeric,
	"wins" integer,
	"top5" integer,
	"top10" integer,
	"features" integer,
	"points_as_of" timestamp,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "point_standings_schedule_id_class_id_driver_id_pk" PRIMARY KEY("schedule_id","class_id","driver_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."point_years" (
	"year" integer PRIMARY KEY NOT NULL,
	"schedule_count" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."races" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"race_number" integer NOT NULL,
	"race_name" text,
	"race_laps" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "races_event_id_class_id_race_number_pk" PRIMARY KEY("event_id","class_id","race_number")
);
--> statement-breakpoint
CREATE TABLE "mrp"."results" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"race_number" integer NOT NULL,
	"row_index" integer NOT NULL,
	"driver_id" integer,
	"driver_name" text,
	"finish" integer,
	"start" integer,
	"car_number" text,
	"dnf" boolean,
	"dns" boolean,
	"dq" boolean,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "results_event_id_class_id_race_number_row_index_pk" PRIMARY KEY("event_id","class_id","race_number","row_index")
);
--> statement-breakpoint
CREATE TABLE "mrp"."results_feed" (
	"event_id" integer NOT NULL,
	"class_id" integer NOT NULL,
	"finish" integer NOT NULL,
	"event_date" timestamp,
	"event_name" text,
	"race_name" text,
	"car_number" text,
	"driver_id" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "results_feed_event_id_class_id_finish_pk" PRIMARY KEY("event_id","class_id","finish")
);
--> statement-breakpoint
CREATE TABLE "mrp"."schedule_events" (
	"schedule_id" integer NOT NULL,
	"event_id" integer NOT NULL,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone,
	CONSTRAINT "schedule_events_schedule_id_event_id_pk" PRIMARY KEY("schedule_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "mrp"."schedule_years" (
	"year" integer PRIMARY KEY NOT NULL,
	"schedule_count" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mrp"."schedules" (
	"schedule_id" integer PRIMARY KEY NOT NULL,
	"schedule_name" text,
	"schedule_desc" text,
	"schedule_year" integer,
	"event_count" integer,
	"raw" jsonb NOT NULL,
	"_run_id" bigint NOT NULL,
	"_first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	"_deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "pitwall"."rejects" (
	"reject_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pitwall"."rejects_reject_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" bigint,
	"endpoint" text NOT NULL,
	"params" text NOT NULL,
	"reason" text NOT NULL,
	"payload" jsonb,
	"payload_snippet" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pitwall"."sync_runs" (
	"run_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pitwall"."sync_runs_run_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"job" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"requests" integer DEFAULT 0 NOT NULL,
	"retries" integer DEFAULT 0 NOT NULL,
	"rows_inserted" integer DEFAULT 0 NOT NULL,
	"rows_updated" integer DEFAULT 0 NOT NULL,
	"rows_unchanged" integer DEFAULT 0 NOT NULL,
	"rows_deleted" integer DEFAULT 0 NOT NULL,
	"rows_rejected" integer DEFAULT 0 NOT NULL,
	"unknown_fields" integer DEFAULT 0 NOT NULL,
	"summary" jsonb,
	"error" text,
	"host" text,
	"pid" integer
);
--> statement-breakpoint
CREATE TABLE "pitwall"."sync_state" (
	"endpoint" text NOT NULL,
	"params" text NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"status" text NOT NULL,
	"response_hash" text,
	"item_count" integer,
	"last_error" text,
	"last_run_id" bigint,
	CONSTRAINT "sync_state_endpoint_params_pk" PRIMARY KEY("endpoint","params")
);
--> statement-breakpoint
CREATE INDEX "driver_passes_driver_idx" ON "mrp"."driver_passes" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "drivers_last_name_idx" ON "mrp"."drivers" USING btree ("last_name");--> statement-breakpoint
CREATE INDEX "entry_list_driver_idx" ON "mrp"."entry_list" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "event_classes_class_idx" ON "mrp"."event_classes" USING btree ("class_id");--> statement-breakpoint
CREATE INDEX "events_date_idx" ON "mrp"."events" USING btree ("event_date");--> statement-breakpoint
CREATE INDEX "lineups_driver_idx" ON "mrp"."lineups" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "point_schedules_year_idx" ON "mrp"."point_schedules" USING btree ("schedule_year");--> statement-breakpoint
CREATE INDEX "point_standings_driver_idx" ON "mrp"."point_standings" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "results_driver_idx" ON "mrp"."results" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "results_class_idx" ON "mrp"."results" USING btree ("class_id");--> statement-breakpoint
CREATE INDEX "schedule_events_event_idx" ON "mrp"."schedule_events" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "schedules_year_idx" ON "mrp"."schedules" USING btree ("schedule_year");--> statement-breakpoint
CREATE INDEX "rejects_run_idx" ON "pitwall"."rejects" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "sync_runs_job_started_idx" ON "pitwall"."sync_runs" USING btree ("job","started_at");