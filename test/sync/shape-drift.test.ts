import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { driftText } from '../../src/commands/drift-report.js';
import { loadStatus, statusText } from '../../src/commands/status-report.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RunningSimulator } from '../../src/simulator/server.js';
import { runSync, type RunSummary } from '../../src/sync/run.js';
import { loadDrift } from '../../src/sync/shape/load.js';
import type { SyncObserver } from '../../src/sync/types.js';
import { BACKENDS, type TestDatabase } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { readKept } from '../helpers/served.js';
import { startShapeProxy, type ShapeTransform, type ShapeProxy } from '../helpers/shape-proxy.js';

type Obj = Record<string, unknown>;
const RESULTS = '/v2/schedules/results/';
const ROWS = 'Classes[].Races[].Results[]';

let db: TestDatabase;
let sim: RunningSimulator;
let proxy: ShapeProxy | undefined;

/** A sync through a shape proxy (or straight at the simulator), its warnings collected. */
async function sync(transform?: ShapeTransform, observer?: SyncObserver): Promise<{ summary: RunSummary; warnings: Obj[] }> {
  if (transform && !proxy) proxy = await startShapeProxy(sim.url, transform);
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', destination: { write: (l: string) => void lines.push(l) } });
  const config = loadConfig(
    { MRP_API_BASE_URL: proxy?.url ?? sim.url, MRP_API_KEY: sim.key, DATABASE_URL: db.url, PITWALL_MAX_RPS: '0', PITWALL_CONCURRENCY: '4' },
    {},
    { require: ['apiKey', 'databaseUrl'] },
  );
  const summary = await runSync({ pool: db.pool, config, logger, ...(observer ? { observer } : {}) });
  return { summary, warnings: lines.map((l) => JSON.parse(l) as Obj) };
}

const objects = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** Calls `fn` on every result row of a results body, with its class and race. */
function eachRow(body: unknown, fn: (row: Obj, race: Obj, klass: Obj) => void): void {
  for (const k of objects((body as Obj).Classes)) for (const r of objects(k.Races)) for (const row of objects(r.Results)) fn(row, r, k);
}

async function shapeRows(): Promise<Array<{ endpoint: string; path: string; seen: string; last_run_id: string }>> {
  const { rows } = await db.pool.query(`SELECT endpoint, path, seen, last_run_id, last_seen_at FROM pitwall.shape_paths ORDER BY 1, 2`);
  return rows;
}

describe.each(BACKENDS)('the shape report (%s)', (backend) => {
  const warehouse = useWarehouse(backend, { scale: 'tiny', seed: 11 }, { perTest: true });
  // The helpers above are shared by both backends' blocks: each test points them at its own.
  beforeEach(() => void ({ db, sim } = warehouse));
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  it('finds nothing to report against the modelled shapes, and a no-op re-sync writes nothing to shape_paths', async () => {
    const first = await sync();
    expect(first.summary.status).toBe('succeeded');
    expect(first.summary.unknownFields).toEqual({});
    const report = await loadDrift(db.pool);
    expect(report.map((e) => e.endpoint)).toContain('results');
    for (const e of report) expect({ endpoint: e.endpoint, missing: e.missing, unmodelled: e.unmodelled }).toEqual({ endpoint: e.endpoint, missing: [], unmodelled: [] });
    const before = await shapeRows();
    expect(before.length).toBeGreaterThan(0);

    const again = await sync();
    expect(again.summary.scopes.loaded).toBe(0);
    expect(await shapeRows()).toEqual(before);
  });

  it('reports a renamed modelled field as missing, and its new name as unmodelled with count and example', async () => {
    let renamed = 0;
    const { summary } = await sync((path, body) => {
      if (path === RESULTS)
        eachRow(body, (row) => {
          row.ResultStartPos = row.ResultStart;
          delete row.ResultStart;
          renamed += 1;
        });
      return body;
    });
    expect(renamed).toBeGreaterThan(0);
    expect(summary.unknownFields).toEqual({ results: 1 });
    const results = (await loadDrift(db.pool)).find((e) => e.endpoint === 'results')!;
    expect(results.missing).toEqual([{ path: `${ROWS}.ResultStart`, seen: 0, of: renamed }]);
    expect(results.unmodelled).toEqual([
      { path: `${ROWS}.ResultStartPos`, seen: renamed, of: renamed, types: expect.arrayContaining([expect.any(String)]), example: expect.any(String), keptIn: 'mrp.results.raw' },
    ]);
    const text = driftText([results]);
    expect(text).toContain(`${ROWS}.ResultStart `);
    expect(text).toContain(`${ROWS}.ResultStartPos`);
    // Nothing sent is lost: every row keeps the renamed field's value in raw.
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM mrp.results WHERE raw ? 'ResultStartPos' AND NOT raw ? 'ResultStart'`);
    expect(rows[0].n).toBe(renamed);
  });

  it('reports a new field at every level (envelope, class, race, row, driver) with its count and example, and warns once for each', async () => {
    const counts = { envelope: 0, klass: 0, race: 0, row: 0, driver: 0 };
    let round = 1;
    const transform: ShapeTransform = (path, body) => {
      if (path !== RESULTS) return body;
      const b = body as Obj;
      b.ServerRegion = `east-${round}`;
      counts.envelope += 1;
      const races = new Set<Obj>();
      const classes = new Set<Obj>();
      eachRow(b, (row, race, klass) => {
        row.Transponder = 4242;
        counts.row += 1;
        for (const d of objects(row.Driver)) {
          d.DriverHometown = 'Knoxville';
          counts.driver += 1;
        }
        races.add(race);
        classes.add(klass);
      });
      for (const r of races) r.RaceWeather = 'dry';
      for (const k of classes) k.ClassSponsor = null;
      counts.race += races.size;
      counts.klass += classes.size;
      return b;
    };
    const first = await sync(transform);
    expect(first.summary.unknownFields).toEqual({ results: 5 });
    const expected = {
      ServerRegion: { seen: counts.envelope, example: '"east-1"', types: ['string'] },
      'Classes[].ClassSponsor': { seen: counts.klass, example: 'null', types: ['null'] },
      'Classes[].Races[].RaceWeather': { seen: counts.race, example: '"dry"', types: ['string'] },
      [`${ROWS}.Transponder`]: { seen: counts.row, example: '4242', types: ['number'] },
      [`${ROWS}.Driver[].DriverHometown`]: { seen: counts.driver, example: '"Knoxville"', types: ['string'] },
    };
    for (const n of Object.values(counts)) expect(n).toBeGreaterThan(0);
    const results = (await loadDrift(db.pool)).find((e) => e.endpoint === 'results')!;
    expect(results.missing).toEqual([]);
    expect(Object.fromEntries(results.unmodelled.map((u) => [u.path, { seen: u.seen, example: u.example, types: u.types }]))).toEqual(expected);
    // Nothing sent is lost: the kept bodies hold every new field, at every level, as received.
    const kept = (await readKept(db.pool)).filter((k) => k.endpoint === 'results');
    expect(kept).toHaveLength(counts.envelope);
    for (const k of kept) {
      const b = JSON.parse(k.text) as Obj;
      expect(b.ServerRegion).toBe('east-1');
      eachRow(b, (row, race, klass) => {
        expect([row.Transponder, race.RaceWeather, 'ClassSponsor' in klass]).toEqual([4242, 'dry', true]);
        for (const d of objects(row.Driver)) expect(d.DriverHometown).toBe('Knoxville');
      });
    }
    const warned = first.warnings.filter((w) => w.path !== undefined).map((w) => `${String(w.endpoint)} ${String(w.path)}`);
    expect(warned.sort()).toEqual(Object.keys(expected).map((p) => `results ${p}`).sort());

    // Changed bodies (the envelope field's value) are loaded and counted again, without a second warning.
    round = 2;
    const second = await sync(transform);
    expect(second.summary.scopes.loaded).toBeGreaterThan(0);
    expect(second.summary.unknownFields).toEqual({ results: 5 });
    expect(second.warnings.filter((w) => w.path !== undefined)).toEqual([]);
    const after = (await loadDrift(db.pool)).find((e) => e.endpoint === 'results')!;
    expect(after.unmodelled.find((u) => u.path === 'ServerRegion')).toMatchObject({ seen: counts.envelope, example: '"east-2"' });
  });

  it('says so when the list key changes: the responses are rejected with the reason, and drift names the key', async () => {
    let moved = 0;
    const { summary } = await sync((path, body) => {
      if (path !== RESULTS) return body;
      const { Classes, ...rest } = body as Obj;
      moved += 1;
      return { ...rest, ClassList: Classes };
    });
    expect(moved).toBeGreaterThan(0);
    expect(summary.status).toBe('failed');
    expect(summary.scopes.failed).toBe(moved);
    // One line per scope: where it failed, why, and the URL without the key.
    const { rows } = await db.pool.query<{ params: string; last_error: string }>(`SELECT params, last_error FROM pitwall.sync_state WHERE endpoint = 'results'`);
    expect(rows).toHaveLength(moved);
    for (const { params, last_error } of rows) {
      // (GET through the test's proxy, on a port of its own)
      expect(last_error).toMatch(new RegExp(`^results: check: ${RESULTS}: the response has no "Classes" list \\(GET http://127\\.0\\.0\\.1:\\d+${RESULTS}\\?${params}\\)$`));
    }
    const results = (await loadDrift(db.pool)).find((e) => e.endpoint === 'results')!;
    expect(results.listKeyMissing).toEqual({ path: 'Classes', seen: 0, of: moved });
    expect(results.unmodelled.map((u) => u.path)).toContain('ClassList');
    expect(driftText([results])).toContain(`list key "Classes" absent from ${moved} of ${moved} response(s)`);
  });

  it('shows in status as one line, in /metrics per endpoint and kind, and lists the values that failed their type', async () => {
    const metrics = createMetrics();
    const rename: ShapeTransform = (path, body) => {
      if (path === RESULTS)
        eachRow(body, (row) => {
          row.ResultStartPos = row.ResultStart;
          delete row.ResultStart;
        });
      return body;
    };
    // pitwall.field_errors is written by the loader; two failed values of one path, one of another.
    await db.pool.query(
      `INSERT INTO pitwall.field_errors (endpoint, params, table_name, path, value, reason)
       VALUES ('lineups', 'EventId=1', 'lineups', 'Classes[].Races[].Lineup[].CarNum', '{"a":1}', 'expected text'),
              ('lineups', 'EventId=2', 'lineups', 'Classes[].Races[].Lineup[].CarNum', '[7]', 'expected text'),
              ('results', 'EventId=1', 'results', '${ROWS}.ResultPlace', '"first"', 'expected an integer')`,
    );
    await sync(rename, metrics.observer);
    const gauge = await metrics.registry.getSingleMetricAsString('pitwall_shape_drift_paths');
    expect(gauge).toMatch(/^pitwall_shape_drift_paths\{source="default",endpoint="results",kind="unmodelled"\} 1$/m);
    expect(gauge).toMatch(/^pitwall_shape_drift_paths\{source="default",endpoint="results",kind="missing"\} 1$/m);
    expect(gauge).toMatch(/^pitwall_shape_drift_paths\{source="default",endpoint="results",kind="failing"\} 1$/m);
    expect(gauge).toMatch(/^pitwall_shape_drift_paths\{source="default",endpoint="lineups",kind="failing"\} 1$/m);
    expect(gauge).toMatch(/^pitwall_shape_drift_paths\{source="default",endpoint="events",kind="unmodelled"\} 0$/m);

    const report = await loadDrift(db.pool);
    expect(report.find((e) => e.endpoint === 'lineups')!.failing).toEqual([
      { endpoint: 'lineups', path: 'Classes[].Races[].Lineup[].CarNum', count: 2, reason: 'expected text', example: '[7]' },
    ]);
    const [status] = await loadStatus(db.pool);
    if (!status) throw new Error('no report of the default source');
    expect(status.drift.summary).toBe('Drift: 1 unmodelled, 1 missing, 2 failing field(s) in results, lineups; see pitwall drift');
    expect(status.drift.endpoints.results).toEqual({ unmodelled: 1, missing: 1, failing: 1 });
    expect(statusText(status).split('\n')).toContain(status.drift.summary);
  });
});
