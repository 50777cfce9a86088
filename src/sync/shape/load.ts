import type pg from 'pg';

import { driftReport, type EndpointDrift } from './report.js';
import { loadFailingFields, loadShapePaths } from './sql.js';

/** The shape report of everything pitwall has loaded into this warehouse. */
export async function loadDrift(pool: pg.Pool): Promise<EndpointDrift[]> {
  const [paths, failing] = await Promise.all([loadShapePaths(pool), loadFailingFields(pool)]);
  return driftReport(paths, failing);
}
