import type { Endpoint } from '../../src/endpoints/endpoint.js';
import { ENDPOINTS, endpoint } from '../../src/endpoints/registry.js';
import type { Truth } from '../../src/simulator/world/types.js';

/**
 * The fewest requests a full walk can make: one per distinct path+query it has to fetch,
 * counted from the world's ground truth rather than from the walk's own code, so a walk that
 * fetched something twice (or fetched something it need not) shows up as requests > minimum.
 *
 * A root endpoint is fetched once; a child once per distinct query its parent's seeds make (the
 * events of each schedule, the results of each distinct event, the standings of each points
 * class). Counted for every registered endpoint, so a new one is counted without a line here.
 */
export function minimumRequests(truth: Truth): { total: number; parts: Record<string, number> } {
  const parts = Object.fromEntries(ENDPOINTS.map((ep) => [ep.name, ep.parent === null ? 1 : queriesFromParent(ep, ep.parent, truth)]));
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/** The distinct queries `child` is fetched with: one per seed the parent's levels make from the true rows of their tables. */
function queriesFromParent(child: Endpoint, parent: Endpoint['name'], truth: Truth): number {
  const queries = new Set<string>();
  for (const l of endpoint(parent).levels) {
    const seed = l.spec.seed;
    if (!seed) continue;
    for (const row of truth[l.table]) queries.add(new URLSearchParams(child.params(seed(row))).toString());
  }
  return queries.size;
}
