import { readdirSync, readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { minimumRequests } from '../../bench/lib/min-requests.js';
import { RELATIONSHIPS } from '../../src/analytics/relationships.js';
import { OUTSIDE_THE_VIEWS } from '../../src/analytics/view-coverage.js';
import { tableMeta } from '../../src/db/load/table-meta.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';
import type { Endpoint } from '../../src/endpoints/endpoint.js';
import { ENDPOINTS, LOAD_ORDER } from '../../src/endpoints/registry.js';
import { createWorld } from '../../src/simulator/world/index.js';
import { API_PATHS } from '../../src/simulator/world/render/router.js';
import { NO_QUIRKS } from '../../src/simulator/world/types.js';
import { useDatabase } from '../helpers/fixture.js';
import { walk } from '../simulator/world/helpers.js';

/**
 * The places a new endpoint must reach that nothing derives from its declaration (the checklist
 * in docs/development.md, "Adding an endpoint"): each test names the file to edit.
 */

const ENDPOINTS_DIR = new URL('../../src/endpoints/', import.meta.url);

const isEndpoint = (v: unknown): v is Endpoint =>
  typeof v === 'object' && v !== null && 'rejectTable' in v && 'levels' in v && typeof (v as Endpoint).params === 'function';

describe('a new endpoint', () => {
  it('is registered: every endpoint a module under src/endpoints/ declares is in ENDPOINTS of src/endpoints/registry.ts', async () => {
    const unregistered: string[] = [];
    for (const file of readdirSync(ENDPOINTS_DIR).filter((f) => f.endsWith('.ts'))) {
      const module = (await import(new URL(file, ENDPOINTS_DIR).pathname)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) {
        if (isEndpoint(value) && !ENDPOINTS.includes(value)) unregistered.push(`${file}: ${name}`);
      }
    }
    expect(unregistered, 'add each to ENDPOINTS in src/endpoints/registry.ts').toEqual([]);
  });

  it('is served by the simulator: every registered path has a route in src/simulator/world/render/router.ts', () => {
    const unserved = ENDPOINTS.filter((ep) => !API_PATHS.includes(ep.path)).map((ep) => `${ep.name} ${ep.path}`);
    expect(unserved, 'add a renderer and its route to ROUTES in src/simulator/world/render/router.ts').toEqual([]);
  });

  it('is joined: src/analytics/relationships.ts links every endpoint table to the rest, and to the event, class and driver it names', () => {
    // The join graph over the endpoints' tables is connected (the two sides meet at classes and
    // drivers), so a table without a relationship is a table no join reaches.
    const reached = new Set<string>([LOAD_ORDER[0]!]);
    for (let size = 0; size < reached.size; ) {
      size = reached.size;
      for (const r of RELATIONSHIPS) if (reached.has(r.parent) || reached.has(r.child)) reached.add(r.parent).add(r.child);
    }
    const unjoined = LOAD_ORDER.filter((t) => !reached.has(t));
    // A table holding the id of a table keyed by that id alone (event_id: events, class_id:
    // classes, driver_id: drivers) reaches it going up its joins, child to parent. Ids two tables
    // are keyed by (schedule_id, year) say nothing about which one is meant.
    const columnsOf = (t: WarehouseTableName) => {
      const meta = tableMeta(warehouseTables[t]);
      return [...meta.keyColumns, ...meta.contentColumns].filter((c) => c !== 'source');
    };
    const ownersOf = (id: string) => LOAD_ORDER.filter((t) => tableMeta(warehouseTables[t]).keyColumns.filter((c) => c !== 'source').join() === id);
    const above = (t: string, seen = new Set<string>()): Set<string> => {
      for (const r of RELATIONSHIPS) if (r.child === t && !seen.has(r.parent)) above(r.parent, seen.add(r.parent));
      return seen;
    };
    const unlinked = LOAD_ORDER.flatMap((t) =>
      columnsOf(t).flatMap((c) => {
        const owners = ownersOf(c);
        return owners.length === 1 && owners[0] !== t && !above(t).has(owners[0]!) ? [`${t} -> ${owners[0]}`] : [];
      }),
    );
    expect([...unjoined.map((t) => `${t}: no join`), ...unlinked], 'declare their joins in RELATIONSHIPS of src/analytics/relationships.ts').toEqual([]);
  });

  describe('is covered by the analytics views', () => {
    const db = useDatabase();

    it('every endpoint table is read by a view (migrations/), or src/analytics/view-coverage.ts says why not, never both', async () => {
      const { rows } = await db.pool.query<{ table_name: string }>(
        `SELECT DISTINCT table_name FROM information_schema.view_table_usage WHERE view_schema = 'analytics' AND table_schema = 'mrp'`,
      );
      const read = new Set(rows.map((r) => r.table_name));
      const outside = new Set(Object.keys(OUTSIDE_THE_VIEWS));
      const neither = LOAD_ORDER.filter((t) => !read.has(t) && !outside.has(t));
      const both = LOAD_ORDER.filter((t) => read.has(t) && outside.has(t));
      expect(
        [...neither.map((t) => `${t}: no view reads it, no reason given`), ...both.map((t) => `${t}: read by a view, yet given a reason`)],
        'read each table in an analytics view (a migration) or give the reason none does in OUTSIDE_THE_VIEWS of src/analytics/view-coverage.ts',
      ).toEqual([]);
    });
  });

  it('is counted in the bench\'s minimum requests (bench/lib/min-requests.ts, derived from the registry)', () => {
    const { parts } = minimumRequests(createWorld({ seed: 1, scale: 'tiny' }).truth());
    const uncounted = ENDPOINTS.filter((ep) => !((parts[ep.name] ?? 0) > 0)).map((ep) => ep.name);
    expect(uncounted, 'count its requests in bench/lib/min-requests.ts').toEqual([]);
  });

  it('is walked by the simulator\'s world tests: walk() of test/simulator/world/helpers.ts fetches every registered path', () => {
    const walked = new Set(walk(createWorld({ seed: 1, scale: 'tiny' }), NO_QUIRKS).map((r) => r.path));
    const unwalked = ENDPOINTS.filter((ep) => !walked.has(ep.path)).map((ep) => `${ep.name} ${ep.path}`);
    expect(unwalked, 'fetch each in walk() of test/simulator/world/helpers.ts').toEqual([]);
  });

  it('is listed in docs/warehouse.md: its tables are in the Tables section', () => {
    const doc = readFileSync(new URL('../../docs/warehouse.md', import.meta.url), 'utf8');
    const tables = doc.slice(doc.indexOf('## Tables'), doc.indexOf('<!-- wire-columns:start'));
    const missing = LOAD_ORDER.filter((t) => !tables.includes(`| \`mrp.${t}\` |`));
    expect(missing, 'add a row for each to the Tables section of docs/warehouse.md').toEqual([]);
  });
});
