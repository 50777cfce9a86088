import type pg from 'pg';

/**
 * What the workers asked of the database in one run of the sites section, from pg_stat_statements
 * (top-level statements only: a trigger's or a foreign key's own queries are not sent by pitwall).
 * Each statement falls in the first class whose rule matches its text:
 * - `setup`: migrations and the extension itself (DDL, the migration tables);
 * - `bench`: the bench's own polling (BENCH_QUERIES);
 * - `runRecord`: the two statements that open and close a run's record in pitwall.sync_runs;
 * - `fence`: the check that ends each load transaction (its run's row must still say `running`),
 *   counted apart: it is one per transaction that writes, whatever the coordination model;
 * - `coordination`: who works what: the lock sessions' statements (advisory locks taken and given
 *   back: a source's owner, a guest's presence, a run's job locks; the look at pg_locks each beat),
 *   and every other statement on pitwall.sync_runs (the one heartbeat per beat, dead-run marking,
 *   the catch-up's reads); a source's pace and concurrency live in each process's memory and send none;
 * - `load`: the rest, which is what a scope's load transaction sends (its BEGIN and COMMIT too).
 * `perRequest` is coordination over the requests the upstream answered, issue 29's measure.
 */
export interface StatementCounts {
  setup: number;
  bench: number;
  runRecord: number;
  fence: number;
  coordination: number;
  load: number;
  perRequest: number;
  /** The coordination statements, most called first: what a change of model should remove. */
  topCoordination: Array<{ calls: number; query: string }>;
}

/** The statements benchSites polls with, counted apart from the workers'. */
export const BENCH_QUERIES = {
  connections: 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
  fullsDone: `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE job = 'full' AND status = 'succeeded'`,
  requestsBySource: 'SELECT source, sum(requests)::int AS requests FROM pitwall.sync_runs GROUP BY source',
} as const;

const SETUP = /^\s*(create|drop|alter|grant|revoke|comment|lock|set search_path)\b|"?drizzle"?\.|pg_stat_statements/i;
const RUN_RECORD = /^\s*(INSERT INTO pitwall\.sync_runs \(|UPDATE pitwall\.sync_runs SET status = \$\d+, finished_at = now\(\))/i;
const FENCE = /^\s*SELECT status FROM pitwall\.sync_runs WHERE run_id = \$\d+ FOR SHARE\s*$/i;
const COORDINATION = /pitwall\.sync_runs\b|pg_(try_)?advisory|pg_locks/i;

const normalise = (q: string) => q.replace(/\s+/g, ' ').trim();
/** A statement as pg_stat_statements keeps it: constants and parameters become placeholders. */
const shape = (q: string) => normalise(q).replace(/'[^']*'|\$\d+/g, '$');

export function classify(query: string): keyof Omit<StatementCounts, 'perRequest' | 'topCoordination'> {
  const text = normalise(query);
  if (Object.values(BENCH_QUERIES).some((b) => shape(b) === shape(text))) return 'bench';
  if (SETUP.test(text)) return 'setup';
  if (RUN_RECORD.test(text)) return 'runRecord';
  if (FENCE.test(text)) return 'fence';
  if (COORDINATION.test(text)) return 'coordination';
  return 'load';
}

export async function countStatements(db: pg.Pool, upstreamRequests: number): Promise<StatementCounts> {
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { rows } = await db.query<{ calls: string; query: string }>(
    `SELECT calls, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND toplevel`,
  );
  const counts: StatementCounts = { setup: 0, bench: 0, runRecord: 0, fence: 0, coordination: 0, load: 0, perRequest: 0, topCoordination: [] };
  for (const r of rows) {
    const kind = classify(r.query);
    counts[kind] += Number(r.calls);
    if (kind === 'coordination') counts.topCoordination.push({ calls: Number(r.calls), query: normalise(r.query).slice(0, 120) });
  }
  counts.topCoordination.sort((a, b) => b.calls - a.calls).splice(12);
  counts.perRequest = upstreamRequests > 0 ? Math.round((counts.coordination / upstreamRequests) * 1000) / 1000 : 0;
  return counts;
}
