import type pg from 'pg';

import { ENDPOINTS } from '../../endpoints/registry.js';
import type { Shapes } from '../../shapes/overrides.js';

import { driftReport, type EndpointDrift } from './report.js';
import { loadFailingFields, loadShapePaths, type SourceFilter } from './sql.js';

/** The shape report of everything pitwall has loaded into this warehouse (from `sources`, or all), against the declarations and a shapes file's aliases. */
export async function loadDrift(pool: pg.Pool, overrides: Shapes | null = null, sources: SourceFilter = null): Promise<EndpointDrift[]> {
  const [paths, failing] = await Promise.all([loadShapePaths(pool, sources), loadFailingFields(pool, sources)]);
  return driftReport(paths, failing, ENDPOINTS, overrides);
}
