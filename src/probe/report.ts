import { driftText } from '../commands/drift-report.js';
import { renderTable } from '../commands/format.js';
import type { Shapes } from '../shapes/overrides.js';
import type { FailingValues } from '../shapes/suggest.js';
import { ENDPOINTS } from '../sync/endpoints.js';
import { driftReport, type EndpointDrift } from '../sync/shape/report.js';
import type { FailingField, ShapePathRow } from '../sync/shape/sql.js';
import { modelledOf } from '../sync/shape/tracker.js';
import { newNode, observe, paths } from '../sync/shape/tree.js';

import type { ProbeSample } from './sample.js';

/** The samples' bodies counted path by path, as pitwall.shape_paths counts a warehouse's. */
export function samplePaths(samples: readonly ProbeSample[], overrides: Shapes | null = null): ShapePathRow[] {
  const rows: ShapePathRow[] = [];
  for (const ep of ENDPOINTS) {
    const bodies = samples.filter((s) => s.endpoint === ep.name && s.body).map((s) => s.body);
    if (bodies.length === 0) continue;
    const tree = newNode();
    for (const b of bodies) observe(tree, b);
    const modelled = modelledOf(ep, overrides?.endpoints.get(ep.name));
    for (const p of paths(tree)) rows.push({ endpoint: ep.name, ...p, modelled: modelled.has(p.path) });
  }
  return rows;
}

/** The samples' values that failed their type, by endpoint and path, as pitwall.field_errors gives them to `drift`. */
export function sampleFailing(samples: readonly ProbeSample[]): { failing: FailingField[]; values: FailingValues[] } {
  const byPath = new Map<string, { endpoint: string; path: string; errors: ProbeSample['fieldErrors'] }>();
  for (const s of samples) {
    for (const e of s.fieldErrors) {
      const k = `${s.endpoint}\u0000${e.path}`;
      let entry = byPath.get(k);
      if (!entry) byPath.set(k, (entry = { endpoint: s.endpoint, path: e.path, errors: [] }));
      entry.errors.push(e);
    }
  }
  const all = [...byPath.values()];
  return {
    failing: all.map((f) => ({ endpoint: f.endpoint, path: f.path, count: f.errors.length, reason: f.errors[0]!.reason, example: f.errors[0]!.value })),
    values: all.map((f) => ({ endpoint: f.endpoint, path: f.path, values: [...new Set(f.errors.map((e) => e.value))] })),
  };
}

/** The shape report of the samples, as `pitwall drift` reports a warehouse's: missing, unmodelled and failing fields. */
export function sampleDrift(samples: readonly ProbeSample[], overrides: Shapes | null = null): EndpointDrift[] {
  return driftReport(samplePaths(samples, overrides), sampleFailing(samples).failing, ENDPOINTS, overrides);
}

const shown = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));

/** What `pitwall probe` prints: each request's envelope, then the samples' shape report. */
export function probeText(samples: readonly ProbeSample[], drift: readonly EndpointDrift[]): string {
  const table = renderTable(
    ['endpoint', 'params', 'outcome', 'RequestValid', 'RequestCached', 'list key', 'items', 'rejected'],
    samples.map((s) => [
      s.endpoint,
      s.params,
      s.outcome,
      shown(s.requestValid),
      shown(s.requestCached),
      s.listKey.found ? s.listKey.expected : s.body ? `${s.listKey.expected} absent; lists: ${s.listKey.lists.join(', ') || 'none'}` : '',
      s.items,
      s.rejected,
    ]),
  );
  const notes = samples.flatMap((s) => [
    ...(s.error ? [`${s.endpoint}: ${s.error}`] : []),
    ...s.reasons.map((r) => `${s.endpoint}: rejected: ${r}`),
  ]);
  return ['Samples', table, ...(notes.length ? ['', ...notes] : []), '', 'Shape of the samples against the declared shapes', driftText(drift)].join('\n');
}
