import type pg from 'pg';

import { ENDPOINTS } from '../../endpoints/registry.js';
import type { Shapes } from '../../shapes/overrides.js';

import { driftReport, type EndpointDrift } from './report.js';
import { loadFailingFields, loadShapePaths } from './sql.js';

/** The shape report of everything pitwall has loaded into this warehouse, against the declarations and a shapes file's aliases. */
export async function loadDrift(pool: pg.Pool, overrides: Shapes | null = null): Promise<EndpointDrift[]> {
  const [paths, failing] = await Promise.all([loadShapePaths(pool), loadFailingFields(pool)]);
  return driftReport(paths, failing, ENDPOINTS, overrides);
}
