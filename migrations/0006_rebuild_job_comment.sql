-- `pitwall rebuild` records its runs in pitwall.sync_runs too.
COMMENT ON COLUMN pitwall.sync_runs.job IS 'The job: full, season or live; rebuild for pitwall rebuild, which re-derives the typed tables from pitwall.responses.';
