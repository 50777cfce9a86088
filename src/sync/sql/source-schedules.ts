import type pg from 'pg';

import type { Reader } from '../../db/reader.js';

/** The schedules a worker runs for one source: a cron expression per job, in `timezone`. */
export interface SourceSchedules {
  live: string;
  season: string;
  full: string;
  timezone: string;
}

/**
 * Written by a worker when it takes sources: the schedules it runs for each, under its name
 * (`pid@host`, as its lock session names itself), so that another process (`pitwall status`) says
 * when the owner's jobs fire next instead of guessing from its own settings.
 */
export async function publishSchedules(db: pg.Pool, worker: string, sources: ReadonlyArray<{ source: string; schedules: SourceSchedules }>): Promise<void> {
  if (sources.length === 0) return;
  await db.query(
    `INSERT INTO pitwall.sources AS s (source, schedules, scheduled_by, scheduled_at)
     SELECT x.source, x.schedules, $1, now() FROM jsonb_to_recordset($2::jsonb) AS x(source text, schedules jsonb)
     ON CONFLICT (source) DO UPDATE SET schedules = excluded.schedules, scheduled_by = excluded.scheduled_by, scheduled_at = excluded.scheduled_at`,
    [worker, JSON.stringify(sources)],
  );
}

/** The schedules last published for each of `sources`, and by which worker; a source none has published for is absent. */
export async function publishedSchedules(db: Reader, sources: readonly string[]): Promise<Map<string, { worker: string; schedules: SourceSchedules }>> {
  const { rows } = await db.query<{ source: string; worker: string; schedules: SourceSchedules }>(
    `SELECT source, scheduled_by AS worker, schedules FROM pitwall.sources WHERE source = ANY($1::text[]) AND schedules IS NOT NULL AND scheduled_by IS NOT NULL`,
    [sources],
  );
  return new Map(rows.map((r) => [r.source, { worker: r.worker, schedules: r.schedules }]));
}
