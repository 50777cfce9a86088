import type pg from 'pg';

import { queryWithRetry } from '../../db/transaction.js';

import { isUnmodelledField } from './modelled.js';
import type { ShapePathRow, ShapeRun } from './sql.js';
import { parentPath, ROOT, type JsonType, type ShapePath } from './tree.js';

/**
 * A modelled field that every object able to hold it lacked in a run's loaded bodies: one that
 * used to arrive (`vanished`), or one never seen while a new field beside it appeared
 * (`never-seen`, on a first sync). `candidates` are the new fields of a compatible type beside
 * it: likely its new name (`pitwall drift --suggest` writes the alias).
 */
export interface ShapeWarning {
  endpoint: string;
  path: string;
  kind: 'vanished' | 'never-seen';
  candidates: string[];
}

const SCALARS: ReadonlySet<JsonType> = new Set(['string', 'number', 'boolean']);

/** Modelled fields absent from every object of their parent in one flush (the parent was seen). */
export function absentFields(modelled: ReadonlySet<string>, seen: ReadonlyMap<string, ShapePath>): string[] {
  const out: string[] = [];
  for (const path of modelled) {
    if (path === ROOT || path.endsWith('[]') || seen.has(path)) continue;
    const parent = parentPath(path);
    if (parent !== null && (seen.get(parent)?.seen ?? 0) > 0) out.push(path);
  }
  return out;
}

/**
 * The warnings of one endpoint's flush, each given once per change: a field already marked
 * missing is not warned again until it has been seen since (upsertShapePaths clears the mark).
 * `fresh` are the paths this flush saw for the first time ever, among them any new name.
 */
export async function vanishedFields(
  pool: pg.Pool,
  { runId, source }: ShapeRun,
  endpoint: string,
  absent: readonly string[],
  fresh: readonly ShapePathRow[],
  modelled: ReadonlySet<string>,
): Promise<ShapeWarning[]> {
  if (absent.length === 0) return [];
  const { rows } = await queryWithRetry<{ path: string; seen: string; json_types: string[]; missing_since_run_id: string | null }>(
    pool,
    `SELECT path, seen, json_types, missing_since_run_id FROM pitwall.shape_paths WHERE source = $3 AND endpoint = $1 AND path = ANY($2::text[])`,
    [endpoint, absent, source],
  );
  const known = new Map(rows.map((r) => [r.path, r]));
  const warnings: ShapeWarning[] = [];
  for (const path of absent) {
    const before = known.get(path);
    if (before?.missing_since_run_id != null) continue;
    const wasSeen = before !== undefined && Number(before.seen) > 0;
    const types = new Set<JsonType>(wasSeen ? (before.json_types as JsonType[]) : SCALARS);
    const candidates = fresh
      .filter((f) => parentPath(f.path) === parentPath(path) && isUnmodelledField(f.path, modelled) && f.types.some((t) => types.has(t)))
      .map((f) => f.path);
    // A field never seen and with no new field beside it is optional or empty upstream, not renamed.
    if (!wasSeen && candidates.length === 0) continue;
    warnings.push({ endpoint, path, kind: wasSeen ? 'vanished' : 'never-seen', candidates });
  }
  if (warnings.length > 0) {
    await queryWithRetry(
      pool,
      `INSERT INTO pitwall.shape_paths AS s (source, endpoint, path, json_types, seen, modelled, first_run_id, last_run_id, missing_since_run_id)
       SELECT $4, $1, u.path, '{}', 0, true, $3, $3, $3 FROM unnest($2::text[]) AS u(path)
       ON CONFLICT (source, endpoint, path) DO UPDATE SET missing_since_run_id = $3`,
      [endpoint, warnings.map((w) => w.path), runId, source],
    );
  }
  return warnings;
}

/** `results: Classes[].Races[].Results[].ResultStart is missing from every item (was sent before); new beside it: StartPos`. */
export function describeWarning(w: ShapeWarning): string {
  const name = (p: string) => p.slice(p.lastIndexOf('.') + 1);
  const what = w.kind === 'vanished' ? 'is missing from every item (it was sent before)' : 'was never sent';
  const beside = w.candidates.length > 0 ? `; new beside it: ${w.candidates.map(name).join(', ')}` : '';
  return `${w.endpoint}: ${w.path} ${what}${beside}`;
}
