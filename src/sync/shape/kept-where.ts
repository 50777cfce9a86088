import { levelsOf, type Level } from '../../endpoints/declare.js';
import { hasOwnRow, type Endpoint } from '../../endpoints/endpoint.js';

/**
 * Where a field no declaration models is kept, for the shape report and the logs to say exactly:
 * in the `raw` of the rows of its level, in the `outer_raw` of the rows below a level that has no
 * row of its own (a class, a lineup race, the feed's event, the points envelope), or, for an
 * envelope no declaration reads, only in the kept bodies (pitwall.responses).
 */
export function keptWhere(ep: Endpoint, path: string): string {
  const levels = [...(ep.envelope ? [ep.envelope] : []), ...levelsOf(ep.list.level)];
  let at: Level | undefined;
  for (const l of levels) if (l.path === '' ? !path.includes('[]') || !path.startsWith(ep.arrayKey) : path.startsWith(`${l.path}.`)) at = l;
  if (!at) return BODIES;
  // The envelope has no row: its fields go with every row of the response.
  if (at === ep.envelope) return outerOf(levelsOf(ep.list.level));
  if (hasOwnRow(at)) return `mrp.${at.table}.raw`;
  return outerOf(levelsOf(at).slice(1));
}

const BODIES = 'pitwall.responses (the kept bodies)';

const outerOf = (levels: readonly Level[]): string =>
  [...new Set(levels.filter(hasOwnRow).map((l) => `mrp.${l.table}.outer_raw`))].join(', ') || BODIES;
