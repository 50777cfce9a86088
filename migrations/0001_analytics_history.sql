CREATE SCHEMA "analytics";
--> statement-breakpoint
CREATE TABLE "analytics"."point_standings_history" (
	"history_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics"."point_standings_history_history_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	"valid_from" timestamp with time zone NOT NULL,
	"valid_to" timestamp with time zone,
	"is_current" boolean GENERATED ALWAYS AS (valid_to IS NULL) STORED,
	"run_id" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "point_standings_history_current_key" ON "analytics"."point_standings_history" USING btree ("schedule_id","class_id","driver_id") WHERE valid_to IS NULL;--> statement-breakpoint
CREATE INDEX "point_standings_history_key_idx" ON "analytics"."point_standings_history" USING btree ("schedule_id","class_id","driver_id","valid_from");