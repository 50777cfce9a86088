ALTER TABLE "mrp"."entry_list" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
ALTER TABLE "mrp"."lineups" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
ALTER TABLE "mrp"."point_standings" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
ALTER TABLE "mrp"."races" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
ALTER TABLE "mrp"."results" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
ALTER TABLE "mrp"."results_feed" ADD COLUMN "outer_raw" jsonb;--> statement-breakpoint
COMMENT ON COLUMN "mrp"."races"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
--> statement-breakpoint
COMMENT ON COLUMN "mrp"."results"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
--> statement-breakpoint
COMMENT ON COLUMN "mrp"."lineups"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
--> statement-breakpoint
COMMENT ON COLUMN "mrp"."entry_list"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
--> statement-breakpoint
COMMENT ON COLUMN "mrp"."results_feed"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
--> statement-breakpoint
COMMENT ON COLUMN "mrp"."point_standings"."outer_raw" IS 'Fields of the enclosing levels of the response that have no row of their own (a class, a race, the feed''s event, the points envelope) and that no declaration models, by level path, e.g. {"Classes[]": {"NewField": 1}}; NULL when there are none, as under the declared shapes.';
