import { readFileSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { summaryJson, summaryText } from '../../src/commands/sync-report.js';
import { createSilentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { runSync } from '../../src/sync/run.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy, type ShapeProxy, type ShapeTransform } from '../helpers/shape-proxy.js';
import { syncOnce, testConfig } from '../helpers/sync.js';

type Item = Record<string, unknown>;

/** The queries docs/sync.md shows under "Degrading per field": each must run and find the errors. */
const DOC_QUERIES = (() => {
  const doc = readFileSync(new URL('../../docs/sync.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### Degrading per field'), doc.indexOf('\n## ', doc.indexOf('### Degrading per field')));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split(';').map((q) => q.trim()).filter((q) => q.replace(/--.*$/gm, '').trim().length > 0);
})();

/** A transform that edits each item of `list` in bodies of `path`, and remembers what it sent. */
function editItems(path: string, list: (body: Item) => Item[], edit: (item: Item) => boolean): { transform: ShapeTransform; sent: Item[] } {
  const sent: Item[] = [];
  const transform: ShapeTransform = (p, body: Item) => {
    if (p !== path) return undefined;
    for (const item of list(body)) if (edit(item)) sent.push(structuredClone(item));
    return body;
  };
  return { transform, sent };
}

const points = (body: Item) => (Array.isArray(body.Points) ? (body.Points as Item[]) : []);
const resultRows = (body: Item) =>
  ((body.Classes as Item[] | undefined) ?? []).flatMap((k) => ((k.Races as Item[] | undefined) ?? []).flatMap((r) => (r.Results as Item[] | undefined) ?? []));

describe.each(BACKENDS)('a field that fails its type (%s)', (backend) => {
  let proxy: ShapeProxy | undefined;
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 31 });
  afterAll(async () => {
    await proxy?.close();
  });

  it('loads its item with NULL in the column, records the value, and keeps it in raw', async () => {
    // A decimal with a unit suffix, and a number as text that is not a number.
    const totals = editItems('/v2/points/', points, (p) => (p.PointTotal === undefined ? false : ((p.PointTotal = `${String(p.PointTotal)} pts`), true)));
    const starts = editItems('/v2/schedules/results/', resultRows, (r) => ((r.ResultStart = 'back of the field'), true));
    proxy = await startShapeProxy(sim.url, (p, body, url) => totals.transform(p, body, url) ?? starts.transform(p, body, url));
    const metrics = createMetrics();
    const summary = await runSync({ pool: db.pool, config: testConfig(db, sim, { MRP_API_BASE_URL: proxy.url }), logger: createSilentLogger(), observer: metrics.observer });
    await proxy.close();
    proxy = undefined;

    expect(summary.status).toBe('succeeded');
    expect(totals.sent.length).toBeGreaterThan(0);
    expect(starts.sent.length).toBeGreaterThan(0);
    expect(summary.tables.point_standings?.rejected).toBe(0);
    expect(summary.tables.results?.rejected).toBe(0);
    expect(summary.tables.point_standings?.fieldErrors).toBe(totals.sent.length);
    expect(summary.tables.results?.fieldErrors).toBe(starts.sent.length);
    // The summary a person reads, the one `--json` prints, and the one kept on the run's row.
    expect(summaryText(summary)).toMatch(new RegExp(`^point_standings(\\s+\\d+){6}\\s+${totals.sent.length}\\s+0$`, 'm'));
    expect(summaryText(summary)).toMatch(/ field errors +duplicates$/m);
    expect(JSON.parse(summaryJson(summary)).tables.results.fieldErrors).toBe(starts.sent.length);
    const run = await db.pool.query(`SELECT summary->'tables'->'results'->>'fieldErrors' AS n FROM pitwall.sync_runs WHERE run_id = $1`, [summary.runId]);
    expect(Number(run.rows[0].n)).toBe(starts.sent.length);
    const metricText = await metrics.registry.getSingleMetricAsString('pitwall_field_errors_total');
    expect(metricText).toContain(`pitwall_field_errors_total{source="default",table="point_standings"} ${totals.sent.length}`);

    // Every item loaded: one live row per item sent, its typed column NULL, its raw as received.
    const standings = await db.pool.query(
      `SELECT s.point_total, s.raw->>'PointTotal' AS raw_total, f.path, f.value, f.reason
         FROM mrp.point_standings s
         JOIN pitwall.field_errors f ON f.table_name = 'point_standings'
          AND (f.row_key->>'schedule_id')::int = s.schedule_id AND (f.row_key->>'class_id')::int = s.class_id
          AND (f.row_key->>'driver_id')::int = s.driver_id
        WHERE s._deleted_at IS NULL`,
    );
    expect(standings.rows).toHaveLength(totals.sent.length);
    for (const row of standings.rows) {
      expect(row.point_total).toBeNull();
      expect(row.path).toBe('Points[].PointTotal');
      expect(row.value).toBe(JSON.stringify(row.raw_total));
      expect(row.raw_total).toMatch(/ pts$/);
      expect(row.reason).toMatch(/\S/);
    }
    const results = await db.pool.query(
      `SELECT count(*)::int AS n, count(r.start)::int AS with_start, count(*) FILTER (WHERE r.raw->>'ResultStart' = 'back of the field')::int AS raw_kept
         FROM mrp.results r
         JOIN pitwall.field_errors f ON f.table_name = 'results' AND f.path = 'Classes[].Races[].Results[].ResultStart'
          AND f.row_key = jsonb_build_object('event_id', r.event_id, 'class_id', r.class_id, 'race_number', r.race_number, 'row_index', r.row_index)
        WHERE r._deleted_at IS NULL`,
    );
    expect(results.rows[0]).toEqual({ n: starts.sent.length, with_start: 0, raw_kept: starts.sent.length });
    expect(DOC_QUERIES.length).toBeGreaterThanOrEqual(2);
    for (const sql of DOC_QUERIES) expect((await db.pool.query(sql)).rows.length, sql).toBeGreaterThan(0);
  });

  it('replaces the field errors of a scope when its response loads again, clean', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    expect(summary.tables.point_standings?.fieldErrors ?? 0).toBe(0);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.field_errors`);
    expect(rows[0].n).toBe(0);
    const nulls = await db.pool.query(`SELECT count(*)::int AS n FROM mrp.point_standings WHERE point_total IS NULL AND raw->>'PointTotal' <> ''`);
    expect(nulls.rows[0].n).toBe(0);
  });

  it('rejects an item whose key field fails its type, with the reason, and loads its siblings', async () => {
    let firstOnly = true;
    const keys = editItems('/v2/points/', points, (p) => {
      const driver = (p.Driver as Item[] | undefined)?.[0];
      if (!firstOnly || driver?.DriverId === undefined) return false;
      firstOnly = false;
      driver.DriverId = `driver ${String(driver.DriverId)}`;
      return true;
    });
    proxy = await startShapeProxy(sim.url, keys.transform);
    // A fresh run over every scope: the clean bodies are unchanged, so only the damaged one loads.
    const summary = await syncOnce(db, sim, { env: { MRP_API_BASE_URL: proxy.url } });
    await proxy.close();
    proxy = undefined;

    expect(keys.sent).toHaveLength(1);
    expect(summary.tables.point_standings?.rejected).toBe(1);
    expect(summary.tables.point_standings?.fieldErrors ?? 0).toBe(0);
    const { rows } = await db.pool.query(`SELECT endpoint, reason, payload FROM pitwall.rejects`);
    expect(rows).toHaveLength(1);
    expect(rows[0].endpoint).toBe('point_standings');
    expect(rows[0].reason).toMatch(/Driver\.0\.DriverId/);
    expect(rows[0].payload).toEqual(keys.sent[0]);
    expect(summary.tables.point_standings?.deleted).toBe(1);
  });
});
