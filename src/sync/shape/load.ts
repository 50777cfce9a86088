import type { Reader } from '../../db/reader.js';
import { ENDPOINTS } from '../../endpoints/registry.js';
import type { Shapes } from '../../shapes/overrides.js';

import { driftReport, type EndpointDrift } from './report.js';
import { loadFailingFields, loadShapePaths, type SourceFilter } from './sql.js';

/** The shape report of everything pitwall has loaded into this warehouse (from `sources`, or all), against the declarations and a shapes file's aliases. */
export async function loadDrift(pool: Reader, overrides: Shapes | null = null, sources: SourceFilter = null): Promise<EndpointDrift[]> {
  // One after the other: `pool` may be one client, which runs one statement at a time.
  const paths = await loadShapePaths(pool, sources);
  const failing = await loadFailingFields(pool, sources);
  return driftReport(paths, failing, ENDPOINTS, overrides);
}
