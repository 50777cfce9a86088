import { driftText } from '../commands/drift-report.js';
import { renderTable } from '../commands/format.js';
import { ENDPOINTS } from '../sync/endpoints.js';
import { driftReport, type EndpointDrift } from '../sync/shape/report.js';
import type { ShapePathRow } from '../sync/shape/sql.js';
import { modelledOf } from '../sync/shape/tracker.js';
import { newNode, observe, paths } from '../sync/shape/tree.js';

import type { ProbeSample } from './sample.js';

/** The shape report of the samples' bodies, as `pitwall drift` reports a warehouse's. */
export function sampleDrift(samples: readonly ProbeSample[]): EndpointDrift[] {
  const rows: ShapePathRow[] = [];
  for (const ep of ENDPOINTS) {
    const bodies = samples.filter((s) => s.endpoint === ep.name && s.body).map((s) => s.body);
    if (bodies.length === 0) continue;
    const tree = newNode();
    for (const b of bodies) observe(tree, b);
    const modelled = modelledOf(ep);
    for (const p of paths(tree)) rows.push({ endpoint: ep.name, ...p, modelled: modelled.has(p.path) });
  }
  return driftReport(rows);
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
  return ['Samples', table, ...(notes.length ? ['', ...notes] : []), '', 'Shape of the samples against the assumed schemas', driftText(drift)].join('\n');
}
