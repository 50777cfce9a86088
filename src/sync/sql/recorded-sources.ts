import type { Reader } from '../../db/reader.js';

/**
 * The sources the warehouse has runs of, by name. A loose index scan of
 * sync_runs_job_started_idx (source first): one index probe per source, not a read of every run,
 * however long the history.
 */
export async function recordedSources(db: Reader): Promise<string[]> {
  const { rows } = await db.query<{ source: string }>(
    `WITH RECURSIVE s(source) AS (
       (SELECT source FROM pitwall.sync_runs ORDER BY source LIMIT 1)
       UNION ALL
       SELECT (SELECT x.source FROM pitwall.sync_runs x WHERE x.source > s.source ORDER BY x.source LIMIT 1) FROM s WHERE s.source IS NOT NULL
     )
     SELECT source FROM s WHERE source IS NOT NULL`,
  );
  return rows.map((r) => r.source);
}
