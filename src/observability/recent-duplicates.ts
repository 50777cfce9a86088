import type { Reader } from '../db/reader.js';

/** The newest of a source's recent runs that found items listed twice, with its count per table. */
export interface RecentDuplicates {
  run_id: number;
  job: string;
  /** Per table, the copies the run did not load (each kept in pitwall.rejects). */
  tables: Record<string, number>;
}

/**
 * Among the source's last `limit` finished runs, the newest whose summary counts duplicates
 * (see the sync summary's `duplicates`), or null. Read from the runs, not from pitwall.rejects:
 * a run that found the upstream unchanged loaded nothing and counted none, so "the last run"
 * alone would say none while the upstream still sends copies.
 */
export async function recentDuplicates(db: Reader, source: string, limit: number): Promise<RecentDuplicates | null> {
  const { rows } = await db.query<{ run_id: number; job: string; table_name: string; n: number }>(
    `SELECT r.run_id::int, r.job, t.key AS table_name, (t.value ->> 'duplicates')::int AS n
       FROM (SELECT run_id, job, summary FROM pitwall.sync_runs
              WHERE source = $1 AND status <> 'running' ORDER BY run_id DESC LIMIT $2) r
       CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(r.summary -> 'tables') = 'object' THEN r.summary -> 'tables' ELSE '{}'::jsonb END) t
      WHERE jsonb_typeof(t.value -> 'duplicates') = 'number' AND (t.value ->> 'duplicates')::int > 0
      ORDER BY r.run_id DESC, t.key`,
    [source, limit],
  );
  const newest = rows[0];
  if (!newest) return null;
  const tables: Record<string, number> = {};
  for (const r of rows) if (r.run_id === newest.run_id) tables[r.table_name] = r.n;
  return { run_id: newest.run_id, job: newest.job, tables };
}

/** That finding in one line, as `pitwall status` prints it. */
export function duplicatesLine(d: RecentDuplicates | null, limit: number): string {
  if (!d) return `Duplicates: none in the last ${limit} runs`;
  const entries = Object.entries(d.tables);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const detail = entries.map(([table, n]) => `${table} ${n}`).join(', ');
  return `Duplicates: run ${d.run_id} (${d.job}) loaded once ${total} item(s) the upstream listed twice (${detail}); the copies are in pitwall.rejects`;
}
