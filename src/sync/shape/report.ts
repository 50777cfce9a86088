import type { Endpoint } from '../../endpoints/endpoint.js';
import type { Shapes } from '../../shapes/overrides.js';
import { ENDPOINTS } from '../endpoints.js';

import { keptWhere } from './kept-where.js';
import { isUnmodelledField } from './modelled.js';
import type { FailingField, ShapePathRow } from './sql.js';
import { modelledOf } from './tracker.js';
import { parentPath, ROOT, type JsonType } from './tree.js';

/** A modelled field counts as missing when fewer than this share of its parents carry it. */
export const MISSING_BELOW = 0.5;

export interface PathCount {
  path: string;
  /** Times the path was present. */
  seen: number;
  /** Times its parent (the object that could hold it) was. */
  of: number;
}

export interface UnmodelledField extends PathCount {
  types: JsonType[];
  example: string | null;
  /** The column that keeps it (see kept-where.ts). */
  keptIn: string;
}

export interface EndpointDrift {
  endpoint: string;
  /** Bodies counted. */
  bodies: number;
  /** The list key the endpoint expects, when most bodies lack it: those responses were rejected whole. */
  listKeyMissing: PathCount | null;
  missing: PathCount[];
  unmodelled: UnmodelledField[];
  failing: FailingField[];
}

export type DriftKind = 'unmodelled' | 'missing' | 'failing';

/**
 * The shape report: per endpoint, modelled fields most items lack, fields no schema models,
 * and fields whose values failed their type. Modelled is judged against the schemas as they
 * are now, so a fix to a declaration shows at once. Pure: fed from pitwall.shape_paths by
 * `pitwall drift`, and from the samples' in-memory shapes by `pitwall probe`.
 */
export function driftReport(
  rows: readonly ShapePathRow[],
  failing: readonly FailingField[] = [],
  endpoints: readonly Endpoint[] = ENDPOINTS,
  overrides: Shapes | null = null,
): EndpointDrift[] {
  const out: EndpointDrift[] = [];
  for (const ep of endpoints) {
    const seen = new Map(rows.filter((r) => r.endpoint === ep.name).map((r) => [r.path, r]));
    const bodies = seen.get(ROOT)?.seen ?? 0;
    const fails = failing.filter((f) => f.endpoint === ep.name);
    if (bodies === 0 && fails.length === 0) continue;
    const modelled = modelledOf(ep, overrides?.endpoints.get(ep.name));
    const count = (path: string) => seen.get(path)?.seen ?? 0;
    const missing: PathCount[] = [];
    for (const path of modelled) {
      const parent = parentPath(path);
      // An array's item count is no presence rate: an empty list is a full answer.
      if (parent === null || path.endsWith('[]')) continue;
      const of = count(parent);
      if (of > 0 && count(path) < of * MISSING_BELOW) missing.push({ path, seen: count(path), of });
    }
    const unmodelled: UnmodelledField[] = [];
    for (const r of seen.values()) {
      if (!isUnmodelledField(r.path, modelled)) continue;
      const parent = parentPath(r.path);
      unmodelled.push({ path: r.path, seen: r.seen, of: parent ? count(parent) : 0, types: r.types, example: r.example, keptIn: keptWhere(ep, r.path) });
    }
    const listKey = missing.find((m) => m.path === ep.arrayKey) ?? null;
    out.push({
      endpoint: ep.name,
      bodies,
      listKeyMissing: listKey,
      missing: missing.sort(byPath),
      unmodelled: unmodelled.sort(byPath),
      failing: [...fails],
    });
  }
  return out;
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** How many paths of each kind each endpoint has: the status line and the metrics gauge. */
export function driftCounts(report: readonly EndpointDrift[]): Record<string, Record<DriftKind, number>> {
  return Object.fromEntries(
    report.map((e) => [e.endpoint, { unmodelled: e.unmodelled.length, missing: e.missing.length, failing: e.failing.length }]),
  );
}

export const hasDrift = (e: EndpointDrift): boolean => e.missing.length + e.unmodelled.length + e.failing.length > 0;
