import type pg from 'pg';

import type { Reader } from '../../db/reader.js';
import { queryWithRetry } from '../../db/transaction.js';
import type { FailingValues, PathEvidence } from '../../shapes/suggest.js';

import type { JsonType } from './tree.js';

/** The run whose bodies a shape flush counts, and their source. A probe's counts have no run. */
export interface ShapeRun {
  runId: number | null;
  source: string;
}

/**
 * Which sources a report reads: the named ones, or all when null. Across several sources a
 * path's counts add up and its types merge (see the queries below).
 */
export type SourceFilter = readonly string[] | null;

export interface ShapePathRow {
  endpoint: string;
  path: string;
  types: JsonType[];
  seen: number;
  modelled: boolean;
  example: string | null;
}

/**
 * Adds a run's counts to pitwall.shape_paths: the types seen are merged and the counts added.
 * Rows are written in key order, so two runs flushing at once lock them in the same order.
 * Returns the paths this statement inserted (seen for the first time). A retry after a dropped
 * connection may count a batch twice should its first attempt have committed unseen: the counts
 * are evidence for a person, not data.
 */
export async function upsertShapePaths(pool: pg.Pool, { runId, source }: ShapeRun, rows: readonly ShapePathRow[]): Promise<ShapePathRow[]> {
  if (rows.length === 0) return [];
  const sorted = [...rows].sort((a, b) => (a.endpoint === b.endpoint ? cmp(a.path, b.path) : cmp(a.endpoint, b.endpoint)));
  const { rows: inserted } = await queryWithRetry<{ endpoint: string; path: string; inserted: boolean }>(
    pool,
    `INSERT INTO pitwall.shape_paths AS s (source, endpoint, path, json_types, seen, modelled, first_run_id, last_run_id, example)
     SELECT $8, u.endpoint, u.path, string_to_array(u.types, ','), u.seen, u.modelled, $7, $7, u.example
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::boolean[], $6::text[])
            AS u(endpoint, path, types, seen, modelled, example)
     ON CONFLICT (source, endpoint, path) DO UPDATE SET
       json_types = ARRAY(SELECT DISTINCT t FROM unnest(s.json_types || EXCLUDED.json_types) AS t ORDER BY t),
       seen = s.seen + EXCLUDED.seen,
       modelled = EXCLUDED.modelled,
       last_run_id = EXCLUDED.last_run_id,
       last_seen_at = now(),
       example = COALESCE(EXCLUDED.example, s.example),
       missing_since_run_id = NULL
     RETURNING s.endpoint, s.path, (xmax = 0) AS inserted`,
    [
      sorted.map((r) => r.endpoint),
      sorted.map((r) => r.path),
      sorted.map((r) => r.types.join(',')),
      sorted.map((r) => r.seen),
      sorted.map((r) => r.modelled),
      sorted.map((r) => r.example),
      runId,
      source,
    ],
  );
  const fresh = new Set(inserted.filter((r) => r.inserted).map((r) => `${r.endpoint}\u0000${r.path}`));
  return sorted.filter((r) => fresh.has(`${r.endpoint}\u0000${r.path}`));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A report's `$1`: the sources it reads, NULL for all. */
const sourcesParam = (sources: SourceFilter): string[] | null => (sources === null ? null : [...sources]);

/**
 * One row per endpoint and path over the sources read: counts added, types merged, the newest
 * of the rest (rows in ascending last_run_id order). `modelled` is the declarations' verdict,
 * the same for every source.
 */
function mergeSources<T extends { endpoint: string; path: string; seen: number; types: JsonType[] }>(rows: T[]): T[] {
  const merged = new Map<string, T>();
  for (const r of rows) {
    const key = `${r.endpoint}\u0000${r.path}`;
    const prior = merged.get(key);
    if (!prior) {
      merged.set(key, { ...r });
      continue;
    }
    const types = [...new Set([...prior.types, ...r.types])].sort();
    merged.set(key, { ...prior, ...r, seen: prior.seen + r.seen, types });
  }
  return [...merged.values()];
}

export async function loadShapePaths(pool: Reader, sources: SourceFilter = null): Promise<ShapePathRow[]> {
  const { rows } = await queryWithRetry<{ endpoint: string; path: string; json_types: string[]; seen: string; modelled: boolean; example: string | null }>(
    pool,
    `SELECT endpoint, path, json_types, seen, modelled, example FROM pitwall.shape_paths
      WHERE ($1::text[] IS NULL OR source = ANY($1::text[])) ORDER BY last_run_id NULLS FIRST`,
    [sourcesParam(sources)],
  );
  return mergeSources(rows.map((r) => ({
    endpoint: r.endpoint,
    path: r.path,
    types: r.json_types as JsonType[],
    seen: Number(r.seen),
    modelled: r.modelled,
    example: r.example,
  })));
}

export interface FailingField {
  endpoint: string;
  path: string;
  count: number;
  reason: string;
  example: string | null;
}

/** pitwall.field_errors by endpoint and path: how many values failed their type, and one of them. */
export async function loadFailingFields(pool: Reader, sources: SourceFilter = null): Promise<FailingField[]> {
  const { rows } = await queryWithRetry<{ endpoint: string; path: string; n: string; reason: string; value: string | null }>(
    pool,
    `SELECT endpoint, path, count(*) AS n,
            (array_agg(reason ORDER BY field_error_id DESC))[1] AS reason,
            (array_agg(value ORDER BY field_error_id DESC))[1] AS value
       FROM pitwall.field_errors WHERE ($1::text[] IS NULL OR source = ANY($1::text[])) GROUP BY endpoint, path ORDER BY endpoint, path`,
    [sourcesParam(sources)],
  );
  return rows.map((r) => ({ endpoint: r.endpoint, path: r.path, count: Number(r.n), reason: r.reason, example: r.value }));
}

/** pitwall.shape_paths as `--suggest` reads it: with each path's last run and missing mark. */
export async function loadPathEvidence(pool: pg.Pool, sources: SourceFilter = null): Promise<PathEvidence[]> {
  const { rows } = await queryWithRetry<{ endpoint: string; path: string; json_types: string[]; seen: string; modelled: boolean; last_run_id: string | null; missing_since_run_id: string | null }>(
    pool,
    `SELECT endpoint, path, json_types, seen, modelled, last_run_id, missing_since_run_id FROM pitwall.shape_paths
      WHERE ($1::text[] IS NULL OR source = ANY($1::text[])) ORDER BY last_run_id NULLS FIRST`,
    [sourcesParam(sources)],
  );
  const num = (v: string | null) => (v === null ? null : Number(v));
  return mergeSources(rows.map((r) => ({
    endpoint: r.endpoint,
    path: r.path,
    types: r.json_types as JsonType[],
    seen: Number(r.seen),
    modelled: r.modelled,
    lastRunId: num(r.last_run_id),
    missingSinceRunId: num(r.missing_since_run_id),
  })));
}

/** Up to this many distinct failing values per field are checked against a suggested coercion. */
const FAILING_VALUES_CHECKED = 1000;

/** The distinct values each field failed its type with, as pitwall.field_errors keeps them (JSON text). */
export async function loadFailingValues(pool: pg.Pool, sources: SourceFilter = null): Promise<FailingValues[]> {
  const { rows } = await queryWithRetry<{ endpoint: string; path: string; values: string[] }>(
    pool,
    `SELECT endpoint, path, (array_agg(DISTINCT value))[1:$2] AS values
       FROM pitwall.field_errors WHERE value IS NOT NULL AND ($1::text[] IS NULL OR source = ANY($1::text[])) GROUP BY endpoint, path ORDER BY endpoint, path`,
    [sourcesParam(sources), FAILING_VALUES_CHECKED],
  );
  return rows;
}
