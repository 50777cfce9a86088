-- Workers own sources through advisory locks on one session each, and pace them in memory
-- (docs/scaling.md): the fire log, the shared pace and the shared request slots have no job left,
-- nor has the job queue that pitwall kept in its own schema.
DROP TABLE "pitwall"."job_fires" CASCADE;--> statement-breakpoint
DROP TABLE "pitwall"."request_pace" CASCADE;--> statement-breakpoint
DROP TABLE "pitwall"."request_slots" CASCADE;--> statement-breakpoint
DROP SCHEMA IF EXISTS "graphile_worker" CASCADE;
