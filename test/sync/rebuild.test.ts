import { beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { LockSession } from '../../src/coordination/lock-session.js';
import { tableMeta } from '../../src/db/load/table-meta.js';
import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { warehouseTables, type WarehouseTableName } from '../../src/db/schema/mrp.js';
import { createSilentLogger } from '../../src/log.js';
import type { EndpointName } from '../../src/sync/endpoints.js';
import { compressBody } from '../../src/sync/kept-body.js';
import { runRebuild } from '../../src/sync/rebuild.js';
import { tryRunLocks } from '../../src/sync/sql/job-lock.js';
import type { RunSummary } from '../../src/sync/summary.js';
import { BACKENDS } from '../helpers/db.js';
import { useDatabase, useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth, fetchTruth, type Truth } from '../helpers/warehouse.js';

const TABLES = Object.keys(warehouseTables) as WarehouseTableName[];
const qualified = (t: WarehouseTableName) => tableMeta(warehouseTables[t]).qualifiedName;

/** Per table: rows inserted and rejected, the counts that do not depend on the order scopes load in. */
const insertedAndRejected = (s: RunSummary) =>
  Object.fromEntries(
    Object.entries(s.tables)
      .filter(([, c]) => (c?.inserted ?? 0) + (c?.rejected ?? 0) > 0)
      .map(([t, c]) => [t, { inserted: c?.inserted, rejected: c?.rejected }]),
  );

describe.each(BACKENDS)('pitwall rebuild (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 5 });
  const fresh = useDatabase(backend);
  let truth: Truth;
  let freshSync: RunSummary;
  let hashesBefore: unknown[];

  const rebuild = (endpoints?: EndpointName[]) =>
    runRebuild({ pool: db.pool, config: loadConfig({ DATABASE_URL: db.url }), logger: createSilentLogger() }, { endpoints, pageSize: 7 });
  const hashes = async () =>
    (await db.pool.query('SELECT endpoint, params, status, response_hash FROM pitwall.sync_state ORDER BY endpoint, params')).rows;

  beforeAll(async () => {
    // Bodies replaced by newer ones, and an event gone from its schedule whose detail bodies
    // stay kept: a rebuild must load the newest of each scope and leave the orphan's rows deleted.
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    sim.world.advanceDays(21);
    const { rows } = await db.pool.query<{ event_id: number }>('SELECT event_id FROM mrp.results GROUP BY event_id ORDER BY event_id LIMIT 1');
    sim.world.cancelEvent(rows[0]!.event_id);
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    freshSync = await syncOnce(fresh, sim);
    expect(freshSync.status).toBe('succeeded');
    truth = await fetchTruth(sim.url);
    hashesBefore = await hashes();
    // The upstream is gone for good: a rebuild that sent a request would fail its scopes.
    await sim.close();
    await fresh.drop();
  });

  it('re-derives every table from the kept bodies alone, equal to the truth and to a fresh sync', async () => {
    await db.pool.query(`TRUNCATE ${TABLES.map(qualified).join(', ')} CASCADE`);
    expect(Object.keys(await diffAgainstTruth(db.pool, truth)).length).toBeGreaterThan(0);

    const summary = await rebuild();
    expect(summary.status).toBe('succeeded');
    expect(summary.requests).toBe(0);
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
    // One scope per body a fresh sync loads, the same rows inserted and rejected.
    expect(summary.scopes).toEqual({ loaded: freshSync.scopes.loaded, unchanged: 0, invalid: 0, failed: 0, setAside: 0, carried: 0 });
    expect(insertedAndRejected(summary)).toEqual(insertedAndRejected(freshSync));
    // Each scope keeps the hash its body was kept with, so the next sync still recognises it.
    expect(await hashes()).toEqual(hashesBefore);

    const { rows } = await db.pool.query(
      `SELECT job, trigger, status, requests, rows_inserted, rows_rejected, scopes_done, scopes_total, summary FROM pitwall.sync_runs WHERE run_id = $1`,
      [summary.runId],
    );
    const totals = Object.values(summary.tables).reduce(
      (t, c) => ({ inserted: t.inserted + (c?.inserted ?? 0), rejected: t.rejected + (c?.rejected ?? 0) }),
      { inserted: 0, rejected: 0 },
    );
    expect(rows[0]).toEqual({
      job: 'rebuild',
      trigger: 'manual',
      status: 'succeeded',
      requests: 0,
      rows_inserted: totals.inserted,
      rows_rejected: totals.rejected,
      // Every kept body the rebuild found was loaded: the run's progress ends complete.
      scopes_done: freshSync.scopes.loaded,
      scopes_total: freshSync.scopes.loaded,
      summary: JSON.parse(JSON.stringify(summary)),
    });
  });

  it('rebuilds only the endpoints named, reading their parents for the scopes they name', async () => {
    await db.pool.query(`TRUNCATE ${qualified('point_standings')} CASCADE`);
    const summary = await rebuild(['point_standings']);
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
    expect(Object.keys(summary.tables).sort()).toEqual(['drivers', 'point_standings']);
    expect(summary.tables.point_standings?.inserted).toBe(truth.point_standings.length);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE endpoint = 'point_standings'`);
    expect(summary.scopes.loaded).toBe(rows[0].n);
  });

  it('loads every row again over unchanged tables, changing none', async () => {
    const summary = await rebuild();
    expect(summary.status).toBe('succeeded');
    for (const [table, c] of Object.entries(summary.tables)) expect({ table, inserted: c?.inserted, updated: c?.updated }).toEqual({ table, inserted: 0, updated: 0 });
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
  });

  it('skips while a sync job holds its lock, and records the skip', async () => {
    // Another process's run of `live`: its job lock on its own lock session.
    const session = await LockSession.open(db.pool, 'sync');
    const lock = await tryRunLocks(session, DEFAULT_SOURCE, ['live'], 'live');
    expect(lock).not.toBeNull();
    try {
      const summary = await rebuild();
      expect(summary.status).toBe('skipped');
      const { rows } = await db.pool.query('SELECT job, status FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
      expect(rows[0]).toEqual({ job: 'rebuild', status: 'skipped' });
    } finally {
      await session.close();
    }
  });

  it('starts nothing once drained, and ends interrupted', async () => {
    const drain = new AbortController();
    drain.abort(new Error('stopping'));
    const summary = await runRebuild({ pool: db.pool, config: loadConfig({ DATABASE_URL: db.url }), logger: createSilentLogger() }, { drain: drain.signal });
    expect(summary.status).toBe('interrupted');
    expect(summary.scopes.loaded).toBe(0);
    const { rows } = await db.pool.query('SELECT status FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
    expect(rows[0]).toEqual({ status: 'interrupted' });
  });

  it('skips a kept body that no longer loads, leaving its rows, and ends failed', async () => {
    const { rows } = await db.pool.query<{ response_id: string; params: string }>(
      `SELECT response_id, params FROM pitwall.responses WHERE endpoint = 'point_classes' ORDER BY params LIMIT 1`,
    );
    const target = rows[0]!;
    const stateBefore = await hashes();
    // A body without its list, as a list key renamed in its declaration would make every one of them.
    const broken = await compressBody('{"RequestValid":1,"Renamed":[]}');
    await db.pool.query('UPDATE pitwall.responses SET body = $2, body_bytes = $3 WHERE response_id = $1', [target.response_id, broken.body, broken.bytes]);
    await db.pool.query(`TRUNCATE ${qualified('point_standings')} CASCADE`);

    const summary = await rebuild(['point_standings']);
    expect(summary.status).toBe('failed');
    expect(summary.scopes.failed).toBe(1);
    expect(summary.error).toMatch(/could not be loaded/);
    // The broken scope's classes were not read, so their standings were not rebuilt; every other
    // schedule's were.
    const scheduleId = Number(new URLSearchParams(target.params).get('ScheduleId'));
    const missing = truth.point_standings.filter((r) => r.schedule_id === scheduleId).length;
    expect(missing).toBeGreaterThan(0);
    expect(summary.tables.point_standings?.inserted).toBe(truth.point_standings.length - missing);
    expect(await hashes()).toEqual(stateBefore);
    const { rows: run } = await db.pool.query('SELECT status, error FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
    expect(run[0]).toEqual({ status: 'failed', error: summary.error });
  });
});
