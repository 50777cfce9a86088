-- The pace of all sources together (PITWALL_GLOBAL_MAX_RPS) is one more row of request_pace,
-- named '*', which no source can be named.
COMMENT ON TABLE "pitwall"."request_pace" IS 'Each source''s request pace across every process: when its next upstream request may start. Each request takes the next slot, so a source''s jobs and workers keep to its PITWALL_MAX_RPS together; the row ''*'' is the pace of all sources together (PITWALL_GLOBAL_MAX_RPS).';--> statement-breakpoint
COMMENT ON COLUMN "pitwall"."request_pace"."source" IS 'The source (one API key, one site); default without a PITWALL_SOURCES file; ''*'' for all sources together.';
