import { describe, expect, it } from 'vitest';

import { tableMeta } from '../../src/db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';
import { levelsOf } from '../../src/endpoints/declare.js';
import { DIMENSION_TABLES } from '../../src/endpoints/endpoint.js';
import { ENDPOINTS, EVENT_CHILD_TABLES, EVENT_DETAIL_ENDPOINTS, LIVE_EVENT_DETAIL, LOAD_ORDER } from '../../src/endpoints/registry.js';

describe('the lists derived from the endpoint declarations', () => {
  it('load every warehouse table once, the dimensions first', () => {
    expect([...LOAD_ORDER].sort()).toEqual(Object.keys(warehouseTables).sort());
    expect(new Set(LOAD_ORDER).size).toBe(LOAD_ORDER.length);
    expect(LOAD_ORDER.slice(0, DIMENSION_TABLES.size)).toEqual([...DIMENSION_TABLES]);
  });

  it('declare parents before their children, and each child fans out from seeds its parent makes', () => {
    ENDPOINTS.forEach((ep, i) => {
      if (ep.parent === null) return;
      const parent = ENDPOINTS.findIndex((p) => p.name === ep.parent);
      expect(parent, ep.name).toBeGreaterThanOrEqual(0);
      expect(parent, ep.name).toBeLessThan(i);
      const seeding = levelsOf(ENDPOINTS[parent]!.list.level).filter((l) => l.spec.seed);
      expect(seeding.length, ep.name).toBeGreaterThan(0);
    });
  });

  it('cascade an event to the tables whose key holds event_id below it, and nowhere else', () => {
    for (const table of EVENT_CHILD_TABLES) expect(tableMeta(warehouseTables[table]).keyColumns).toContain('event_id');
    for (const ep of EVENT_DETAIL_ENDPOINTS) {
      for (const t of ep.tables.filter((x) => !DIMENSION_TABLES.has(x))) expect(EVENT_CHILD_TABLES).toContain(t);
    }
    expect(EVENT_CHILD_TABLES).not.toContain('events' satisfies WarehouseTableName);
    expect(EVENT_CHILD_TABLES).not.toContain('results_feed' satisfies WarehouseTableName);
  });

  it('give the live job per-event endpoints only, and each endpoint a reject table of its own', () => {
    expect(LIVE_EVENT_DETAIL.length).toBeGreaterThan(0);
    for (const ep of LIVE_EVENT_DETAIL) expect(ep.parent).toBe('events');
    for (const ep of ENDPOINTS) {
      expect(ep.tables).toContain(ep.rejectTable);
      expect(DIMENSION_TABLES.has(ep.rejectTable)).toBe(false);
      for (const s of ep.scopes) expect(ep.tables).toContain(s.table);
    }
  });
});
