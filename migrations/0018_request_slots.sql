CREATE TABLE "pitwall"."request_slots" (
	"source" text NOT NULL,
	"slot" integer NOT NULL,
	"run_id" bigint,
	"until" timestamp with time zone,
	CONSTRAINT "request_slots_source_slot_pk" PRIMARY KEY("source","slot")
);
--> statement-breakpoint
COMMENT ON TABLE "pitwall"."request_slots" IS 'Each source''s requests in flight across every process: one row per slot of its concurrency (PITWALL_CONCURRENCY or the source''s own), taken by a run''s request while it is out and given back when it answers, so a source''s runs in all workers keep to its concurrency together. A slot is free again when its run is no longer running (a run whose process died is marked abandoned) or its lease ends.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_slots"."source" IS 'The source (one API key, one site); default without a PITWALL_SOURCES file.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_slots"."slot" IS 'The slot, 1 to the source''s concurrency.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_slots"."run_id" IS 'The run whose request holds the slot (pitwall.sync_runs); NULL when free.';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_slots"."until" IS 'When the lease ends: the slot is free from then on even if never given back (the request timeout and a minute beyond).';
