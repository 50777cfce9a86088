CREATE TABLE "pitwall"."field_errors" (
	"field_error_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pitwall"."field_errors_field_error_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" bigint,
	"endpoint" text NOT NULL,
	"params" text NOT NULL,
	"table_name" text NOT NULL,
	"path" text NOT NULL,
	"value" text,
	"row_key" jsonb,
	"reason" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pitwall"."responses" (
	"response_id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "pitwall"."responses_response_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"endpoint" text NOT NULL,
	"params" text NOT NULL,
	"run_id" bigint,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"response_hash" text NOT NULL,
	"encoding" text NOT NULL,
	"body" "bytea" NOT NULL,
	"body_bytes" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pitwall"."shape_paths" (
	"endpoint" text NOT NULL,
	"path" text NOT NULL,
	"json_types" text[] NOT NULL,
	"seen" bigint NOT NULL,
	"modelled" boolean NOT NULL,
	"first_run_id" bigint,
	"last_run_id" bigint,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"example" text,
	CONSTRAINT "shape_paths_endpoint_path_pk" PRIMARY KEY("endpoint","path")
);
--> statement-breakpoint
CREATE INDEX "field_errors_scope_idx" ON "pitwall"."field_errors" USING btree ("endpoint","params");--> statement-breakpoint
CREATE INDEX "field_errors_table_idx" ON "pitwall"."field_errors" USING btree ("table_name","path");--> statement-breakpoint
CREATE INDEX "responses_scope_idx" ON "pitwall"."responses" USING btree ("endpoint","params","response_id");--> statement-breakpoint
COMMENT ON TABLE "pitwall"."responses" IS 'Response bodies pitwall accepted, as received, compressed: the newest PITWALL_KEEP_RESPONSES versions of each request scope. pitwall rebuild re-derives the typed tables from them without asking the upstream.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."response_id" IS 'Increases with every body kept; the newest version of a scope has the highest.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."endpoint" IS 'The endpoint, as in pitwall.sync_state.endpoint.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."params" IS 'The canonical query string without the key, as in pitwall.sync_state.params.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."run_id" IS 'The run that loaded this body (pitwall.sync_runs.run_id).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."received_at" IS 'When the body was loaded.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."response_hash" IS 'The scope''s response hash when this body was loaded (pitwall.sync_state.response_hash).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."encoding" IS 'How body is compressed: gzip.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."body" IS 'The body as received (after transport decoding and the ,, repair), compressed as encoding says.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."responses"."body_bytes" IS 'The body''s size before compression, in bytes.';--> statement-breakpoint
COMMENT ON TABLE "pitwall"."field_errors" IS 'Values that failed their field''s type: the typed column holds NULL, the row loads, the value stays in raw and is recorded here. Replaced per scope each time its response is loaded.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."field_error_id" IS 'Identifies the record.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."run_id" IS 'The run that loaded the response (pitwall.sync_runs.run_id).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."endpoint" IS 'The endpoint whose response held the value.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."params" IS 'The canonical query string without the key.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."table_name" IS 'The table in schema mrp whose row holds NULL for this value.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."path" IS 'Where the value sits in the response, arrays written as [], e.g. Classes[].Races[].Results[].ResultStart.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."value" IS 'The value as received, as JSON text, truncated.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."row_key" IS 'The key columns of the row that holds NULL instead.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."reason" IS 'Why the value did not fit the column.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."field_errors"."created_at" IS 'When it was recorded.';--> statement-breakpoint
COMMENT ON TABLE "pitwall"."shape_paths" IS 'Every JSON path seen in loaded responses, per endpoint, with its types and counts: the shape report behind pitwall drift.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."endpoint" IS 'The endpoint whose responses held the path.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."path" IS 'The JSON path, arrays written as [], e.g. Classes[].Races[].Results[].ResultStart.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."json_types" IS 'The JSON types seen at the path: object, array, string, number, boolean, null.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."seen" IS 'How many times the path was present, over every body loaded (a body loaded again counts again).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."modelled" IS 'Whether a typed column or a nested level models the path.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."first_run_id" IS 'The run that first saw the path.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."last_run_id" IS 'The run that last saw the path.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."first_seen_at" IS 'When the path was first seen.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."last_seen_at" IS 'When the path was last seen.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."shape_paths"."example" IS 'One value seen at the path, truncated (scalars only).';
