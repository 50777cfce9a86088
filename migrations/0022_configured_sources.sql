CREATE TABLE "pitwall"."sources" (
	"source" text PRIMARY KEY NOT NULL,
	"first_configured_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_configured_at" timestamp with time zone DEFAULT now() NOT NULL,
	"unconfigured_since" timestamp with time zone,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
COMMENT ON TABLE "pitwall"."sources" IS 'Which sources the configuration (PITWALL_SOURCES, or MRP_API_KEY alone as the source default) named, and when: every worker and pitwall sync records its sources at start. A source a start did not name is no longer configured from then on; its rows stay until pitwall retire-source marks them deleted (or, with --delete, removes them and this row).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."source" IS 'The source (one API key, one site); default without a PITWALL_SOURCES file.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."first_configured_at" IS 'When a worker or sync first started with the source configured (for a source with runs before this table: its first run).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."last_configured_at" IS 'When a worker or sync last started with the source configured.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."unconfigured_since" IS 'When a worker or sync first started without the source after it was last configured; NULL while it is configured.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."sources"."retired_at" IS 'When pitwall retire-source marked the source''s rows deleted; NULL until then, and again once the source is configured anew.';--> statement-breakpoint
-- The sources a warehouse ran before this table, as configured until the next worker or sync
-- starts and says otherwise.
INSERT INTO "pitwall"."sources" ("source", "first_configured_at", "last_configured_at")
SELECT "source", min("started_at"), max("started_at") FROM "pitwall"."sync_runs" GROUP BY "source";
