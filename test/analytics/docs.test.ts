import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { ANALYTICS_DOC_URL, renderAnalyticsDoc } from '../../src/analytics/analytics-doc.js';
import { COOKBOOK } from '../../src/analytics/cookbook.js';
import { erDiagram } from '../../src/analytics/er-diagram.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';

const DOC = readFileSync(ANALYTICS_DOC_URL, 'utf8');
const VIEWS = ['event_results', 'current_standings', 'standings_history', 'driver_season_summary', 'events_calendar'];

describe('README.md', () => {
  it('holds the ER diagram and cookbook generated now (regenerate: node bin/run-ts.js src/analytics/write-docs.ts)', () => {
    expect(DOC).toBe(renderAnalyticsDoc(DOC));
  });

  it('draws every warehouse table in the diagram', () => {
    const diagram = erDiagram();
    for (const table of [...Object.keys(warehouseTables), 'sync_runs', 'sync_state', 'rejects', 'point_standings_history']) {
      expect(diagram, table).toMatch(new RegExp(`^  ${table} \\{$`, 'm'));
    }
  });

  it('shows every recipe and describes every analytics view', () => {
    for (const r of COOKBOOK) expect(DOC).toContain(r.question);
    for (const v of VIEWS) expect(DOC).toContain(`analytics.${v}`);
  });
});
