import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { GENERATED_DOCS, renderGeneratedSections } from '../../src/analytics/analytics-doc.js';
import { COOKBOOK } from '../../src/analytics/cookbook.js';
import { erDiagram } from '../../src/analytics/er-diagram.js';
import { warehouseTables } from '../../src/db/schema/mrp.js';

const read = (url: URL) => readFileSync(url, 'utf8');
const VIEWS = ['event_results', 'current_standings', 'standings_history', 'driver_season_summary', 'events_calendar'];

describe('the generated docs', () => {
  it.each(Object.entries(GENERATED_DOCS))(
    '%s holds what is generated now (regenerate: node bin/run-ts.js src/analytics/write-docs.ts)',
    (_name, { url, sections }) => {
      const doc = read(url);
      expect(doc).toBe(renderGeneratedSections(doc, sections));
    },
  );

  it('draws every warehouse table in the diagram', () => {
    const diagram = erDiagram();
    for (const table of [...Object.keys(warehouseTables), 'sync_runs', 'sync_state', 'rejects', 'point_standings_history']) {
      expect(diagram, table).toMatch(new RegExp(`^  ${table} \\{$`, 'm'));
    }
  });

  it('show every recipe and describe every analytics view', () => {
    const cookbook = read(GENERATED_DOCS.cookbook.url);
    const warehouse = read(GENERATED_DOCS.warehouse.url);
    for (const r of COOKBOOK) expect(cookbook).toContain(r.question);
    for (const v of VIEWS) expect(warehouse).toContain(`analytics.${v}`);
  });
});
