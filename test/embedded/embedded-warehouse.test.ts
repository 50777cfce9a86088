import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { encodeArray } from '../../src/db/load/binary-array.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { PGLITE_SUBDIR } from '../../src/embedded/embedded-postgres.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

describe('the embedded warehouse', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase('embedded'), startSimulator({ scale: 'tiny', seed: 13 })]);
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('speaks the SQL pitwall relies on: binary array parameters, trim_scale, to_char, advisory locks', async () => {
    const ints = encodeArray([3, null, -7], 'int4', 'integer', 'x');
    const texts = encodeArray(['00', 'Ñúñez', null], 'text', 'text', 'y');
    const { rows } = await db.pool.query(
      `SELECT (SELECT array_agg(v) FROM unnest($1::integer[]) AS v) AS ints, (SELECT array_agg(v) FROM unnest($2::text[]) AS v) AS texts,
              trim_scale(12.500::numeric)::text AS points, to_char('2026-07-04 19:30'::timestamp, 'YYYY-MM-DD HH24:MI:SS') AS at,
              pg_try_advisory_lock(1, 2) AS locked, pg_advisory_unlock(1, 2) AS unlocked`,
      [ints, texts],
    );
    expect(rows[0]).toEqual({ ints: [3, null, -7], texts: ['00', 'Ñúñez', null], points: '12.5', at: '2026-07-04 19:30:00', locked: true, unlocked: true });
  });

  it('syncs with 8 requests in flight through its one connection, and equals the ground truth', async () => {
    const summary = await syncOnce(db, sim, { env: { PITWALL_CONCURRENCY: '8' } });
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('runs a job once at a time in this process: a second run of it is skipped, another job runs beside it', async () => {
    sim.world.advanceDays(14);
    const [a, b, season] = await Promise.all([syncOnce(db, sim), syncOnce(db, sim), syncOnce(db, sim, { job: 'season' })]);
    expect([a.status, b.status].sort()).toEqual(['skipped', 'succeeded']);
    expect(season.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('keeps other processes out while it is open, naming who holds it', async () => {
    const again = openWarehouse(loadConfig({ PITWALL_DATA_DIR: db.dir! }), createSilentLogger());
    await expect(again).rejects.toThrow(/in use by pitwall test/);
    const r = await runCli(['status'], { PITWALL_DATA_DIR: db.dir! });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/in use by pitwall test \(pid \d+/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('an embedded warehouse closed and opened again', () => {
  it('still holds what was written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pitwall-reopen-'));
    cpSync(join(inject('embeddedTemplateDir'), PGLITE_SUBDIR), join(dir, PGLITE_SUBDIR), { recursive: true });
    try {
      const config = loadConfig({ PITWALL_DATA_DIR: dir });
      const first = await openWarehouse(config, createSilentLogger());
      await first.pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status) VALUES ('full', 'manual', 'succeeded')`);
      await first.close();
      const second = await openWarehouse(config, createSilentLogger());
      const { rows } = await second.pool.query('SELECT job, status FROM pitwall.sync_runs');
      await second.close();
      expect(rows).toEqual([{ job: 'full', status: 'succeeded' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
