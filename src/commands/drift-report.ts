import { hasDrift, type EndpointDrift } from '../sync/shape/report.js';

import { renderTable, wrapText } from './format.js';

const pct = (seen: number, of: number): string => (of > 0 ? `${((100 * seen) / of).toFixed(seen === 0 ? 0 : 1)}%` : '-');
const n = (x: number): string => x.toLocaleString('en-US');

/** The shape report for a person: per endpoint, what differs from the schemas pitwall assumes. */
export function driftText(report: readonly EndpointDrift[]): string {
  if (report.length === 0) return 'No responses counted yet: run pitwall sync (or pitwall probe) first.';
  const parts: string[] = [];
  for (const e of report) {
    parts.push(`${e.endpoint} (${n(e.bodies)} response(s))${hasDrift(e) ? '' : ': as modelled'}`);
    if (e.listKeyMissing) {
      const k = e.listKeyMissing;
      parts.push(`  list key "${k.path}" absent from ${n(k.of - k.seen)} of ${n(k.of)} response(s): those responses were rejected whole`);
    }
    const missing = e.missing.filter((m) => m !== e.listKeyMissing);
    if (missing.length) {
      parts.push('  modelled fields missing from most items:');
      parts.push(indent(renderTable(['path', 'present in', 'of', 'rate'], missing.map((m) => [m.path, m.seen, m.of, pct(m.seen, m.of)]), [false, true, true, true])));
    }
    if (e.unmodelled.length) {
      parts.push('  fields no declaration models, kept as received:');
      parts.push(
        indent(
          renderTable(
            ['path', 'types', 'count', 'of', 'example', 'kept in'],
            e.unmodelled.map((u) => [u.path, u.types.join('|'), u.seen, u.of, u.example ?? '', u.keptIn]),
            [false, false, true, true, false, false],
          ),
        ),
      );
    }
    if (e.failing.length) {
      parts.push('  fields whose values failed their type (stored as NULL):');
      parts.push(
        indent(renderTable(['path', 'count', 'example', 'reason'], e.failing.map((f) => [f.path, f.count, f.example ?? '', wrapText(f.reason, 80)]), [false, true, false, false])),
      );
    }
  }
  return parts.join('\n');
}

/** One line for `pitwall status`: how many paths differ, of which kind, and where. */
export function driftLine(report: readonly EndpointDrift[]): string {
  let unmodelled = 0;
  let missing = 0;
  let failing = 0;
  const where: string[] = [];
  for (const e of report) {
    unmodelled += e.unmodelled.length;
    missing += e.missing.length;
    failing += e.failing.length;
    if (hasDrift(e)) where.push(e.endpoint);
  }
  if (report.length === 0) return 'Drift: no responses counted yet';
  if (where.length === 0) return 'Drift: none; every response matches the modelled shapes';
  return `Drift: ${unmodelled} unmodelled, ${missing} missing, ${failing} failing field(s) in ${where.join(', ')}; see pitwall drift`;
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
