import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { encodeArray } from '../../src/db/load/binary-array.js';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate, createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { syncOnce } from '../helpers/sync.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

import { serverRunning, stderrLines } from './serving.js';


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

  it('is a PostgreSQL server on 127.0.0.1 only, behind a password kept in its directory (mode 0600)', async () => {
    const { rows } = await db.pool.query(`SELECT current_setting('listen_addresses') AS listen, current_setting('server_version_num')::int AS version`);
    expect(rows[0]).toEqual({ listen: '127.0.0.1', version: expect.any(Number) });
    expect(rows[0].version).toBeGreaterThanOrEqual(170000);
    expect(statSync(join(db.dir!, 'password')).mode & 0o777).toBe(0o600);
    const port = new URL(db.url).port;
    const noPassword = new pg.Client({ host: '127.0.0.1', port: Number(port), user: 'postgres', password: 'wrong', database: 'postgres' });
    await expect(noPassword.connect()).rejects.toMatchObject({ code: '28P01' });
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

  it('syncs with 8 requests in flight, and equals the ground truth', async () => {
    const summary = await syncOnce(db, sim, { env: { PITWALL_CONCURRENCY: '8' } });
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('runs a job once at a time: a second run of it is skipped, another job runs beside it', async () => {
    sim.world.advanceDays(14);
    const [a, b, season] = await Promise.all([syncOnce(db, sim), syncOnce(db, sim), syncOnce(db, sim, { job: 'season' })]);
    expect([a.status, b.status].sort()).toEqual(['skipped', 'succeeded']);
    expect(season.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('lets other pitwall processes in while it is open, and stays up when they leave', async () => {
    const env = { PITWALL_DATA_DIR: db.dir! };
    const [a, b] = await Promise.all([
      runCli(['sql', '--csv', 'SELECT count(*) AS n FROM mrp.events'], env),
      runCli(['status', '--json'], env),
    ]);
    expect(stderrLines(a.stderr)).toEqual([]);
    expect(a.stdout).toBe(`n\n${sim.world.truth().events.length}\n`);
    expect(b.code).toBe(0);
    expect(serverRunning(db.dir!)).toBe(true);
    expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

describe('an embedded warehouse closed and opened again', () => {
  it('is stopped by the last process to leave, and still holds what was written', async () => {
    const dir = copyEmbeddedTemplate();
    try {
      const config = loadConfig({ PITWALL_DATA_DIR: dir });
      const first = await openWarehouse(config, createSilentLogger());
      expect(first.server?.started).toBe(true);
      const second = await openWarehouse(config, createSilentLogger());
      expect(second.server).toMatchObject({ started: false, port: first.server!.port });
      await first.pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status) VALUES ('full', 'manual', 'succeeded')`);
      await first.close();
      expect(serverRunning(dir)).toBe(true);
      await second.close();
      expect(serverRunning(dir)).toBe(false);
      const third = await openWarehouse(config, createSilentLogger());
      const { rows } = await third.pool.query('SELECT job, status FROM pitwall.sync_runs');
      await third.close();
      expect(rows).toEqual([{ job: 'full', status: 'succeeded' }]);
      expect(third.server?.port).toBe(first.server?.port);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stays up while a client other than pitwall is attached', async () => {
    const dir = copyEmbeddedTemplate();
    try {
      const w = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger());
      const psql = new pg.Client({ connectionString: w.url });
      await psql.connect();
      await w.close();
      expect(serverRunning(dir)).toBe(true);
      await psql.end();
      // The next pitwall process to leave finds no one else and stops it.
      expect((await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir })).code).toBe(0);
      expect(serverRunning(dir)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an embedded warehouse made by an earlier pitwall', () => {
  it('is migrated only by `pitwall migrate` or the worker; status and sql refuse it and say so', async () => {
    const dir = warehouseTempDir('pitwall-earlier');
    // The warehouse pitwall left before sources existed: migrations up to 0012 only, and a run.
    const earlier = mkdtempSync(join(tmpdir(), 'pitwall-migrations-'));
    cpSync(MIGRATIONS_FOLDER, earlier, { recursive: true });
    const journalPath = join(earlier, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    const shipped = journal.entries.length;
    journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === '0013_sources'));
    writeFileSync(journalPath, JSON.stringify(journal));
    try {
      const w = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { pending: 'leave' });
      await migrate(drizzle(w.pool), { migrationsFolder: earlier });
      await w.pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status) VALUES ('full', 'manual', 'succeeded')`);
      await w.close();
      const pending = shipped - journal.entries.length;

      const line = `pitwall: cannot open the warehouse at ${dir}: it was made by an earlier pitwall and ${pending} migrations are pending; run \`pitwall migrate\``;
      for (const args of [['status'], ['sql', 'SELECT 1']]) {
        const r = await runCli(args, { PITWALL_DATA_DIR: dir });
        expect({ args, code: r.code, stderr: stderrLines(r.stderr).map((l) => (l.startsWith(line) ? line : l)) }).toEqual({ args, code: 1, stderr: [line] });
      }
      // Said once at debug level too, its stack and fields after it.
      const debug = await runCli(['sql', 'SELECT 1', '--log-level', 'debug'], { PITWALL_DATA_DIR: dir });
      expect(debug.stderr.split('migrations are pending; run').length - 1).toBe(1);
      expect(debug.stderr).toMatch(/^\s+at bringUpToDate/m);
      const check = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { pending: 'leave' });
      const { rows: untouched } = await check.pool.query(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'pitwall' AND column_name = 'source'`);
      await check.close();
      expect(untouched).toEqual([{ n: 0 }]);

      const migrated = await runCli(['migrate', '--log-level', 'info'], { PITWALL_DATA_DIR: dir });
      expect(migrated.code).toBe(0);
      expect(migrated.stderr).toMatch(new RegExp(`migrations applied: ${pending} in \\d+ ms`));
      const after = await runCli(['sql', '--csv', 'SELECT source, job FROM pitwall.sync_runs'], { PITWALL_DATA_DIR: dir });
      expect(after).toMatchObject({ code: 0, stdout: 'source,job\ndefault,full\n' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(earlier, { recursive: true, force: true });
    }
  });
});

describe('a directory holding a warehouse of pitwall 0.1 (PGlite)', () => {
  it('is reported with what to do, and left untouched', async () => {
    const dir = copyEmbeddedTemplate();
    try {
      mkdirSync(join(dir, 'pglite'));
      writeFileSync(join(dir, 'pglite', 'PG_VERSION'), '17\n');
      const r = await runCli(['sql', '--csv', 'SELECT 1 AS one'], { PITWALL_DATA_DIR: dir, PITWALL_LOG_LEVEL: 'warn' });
      expect(r.stdout).toBe('one\n1\n');
      expect(r.stderr).toMatch(/pglite holds a warehouse made by pitwall 0\.1 \(PGlite\).*left untouched.*pitwall sync.*Upgrading from the PGlite warehouse/);
      expect(readFileSync(join(dir, 'pglite', 'PG_VERSION'), 'utf8')).toBe('17\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an embedded warehouse that cannot start', () => {
  it('says in one line why and what to do, the stack only at debug level', async () => {
    const dir = copyEmbeddedTemplate();
    // A port certainly taken: one this test listens on.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const r = await runCli(['serve-sql', '--port', String(port)], { PITWALL_DATA_DIR: dir });
      // A port in use is a setting that cannot be used: exit 2, as for PITWALL_HTTP_PORT.
      expect(r.code).toBe(2);
      expect(stderrLines(r.stderr)).toEqual([
        `pitwall: cannot open the warehouse at ${dir}: the embedded warehouse's port ${port} is in use by another program; set PITWALL_SQL_PORT to a free port`,
      ]);
      const debug = await runCli(['sql', 'SELECT 1', '--log-level', 'debug'], { PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: String(port) });
      expect(debug.stderr).toContain(`port ${port} is in use by another program`);
      expect(debug.stderr).toMatch(/WarehouseUnavailableError/);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
