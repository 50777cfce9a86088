-- The worker records the runs it starts to catch up at start-up with their own trigger.
COMMENT ON COLUMN pitwall.sync_runs.trigger IS 'What started the run: manual (a command such as pitwall sync), cron (the worker''s schedule) or catch-up (the worker at start-up, for a job behind its schedule).';
