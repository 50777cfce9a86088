import { rmSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { BACKENDS, copyEmbeddedTemplate } from '../helpers/db.js';
import { useDatabase, useSimulator } from '../helpers/fixture.js';

describe.each(BACKENDS)('pitwall sql (%s)', (backend) => {
  const sim = useSimulator({ scale: 'tiny', seed: 19 });
  // The embedded warehouse as the CLI finds it on its own: a directory whose server is not running.
  const db = backend === 'postgres' ? useDatabase() : undefined;
  let dir: string | undefined;
  let env: Record<string, string>;
  beforeAll(async () => {
    if (!db) dir = copyEmbeddedTemplate();
    env = db ? { DATABASE_URL: db.url } : { PITWALL_DATA_DIR: dir! };
    expect((await runCli(['sync'], { ...env, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' })).code).toBe(0);
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints a table with numbers right-aligned and a row count', async () => {
    const r = await runCli(['sql', 'SELECT class_id * 10 AS id, class_name FROM mrp.classes ORDER BY class_id LIMIT 2'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('   id  class_name\n-----  --------------\n10000  Late Models\n10010  IMCA Modifieds\n(2 rows)\n');
  });

  it('prints CSV and JSON with values as Postgres states them', async () => {
    const sql = `SELECT 'a,b' AS x, NULL AS y, 12.50::numeric AS p, '2026-07-04 19:30'::timestamp AS t, ARRAY[1, 2] AS a, true AS b`;
    expect((await runCli(['sql', '--csv', sql], env)).stdout).toBe('x,y,p,t,a,b\n"a,b",,12.50,2026-07-04 19:30:00,"{1,2}",t\n');
    expect(JSON.parse((await runCli(['sql', '--json', sql], env)).stdout)).toEqual([{ x: 'a,b', y: null, p: '12.50', t: '2026-07-04 19:30:00', a: [1, 2], b: true }]);
  });

  it('runs a cookbook recipe with its parameters', async () => {
    const driver = sim.world.truth().driver_stats[0]!.driver_id;
    const r = await runCli(['sql', '--json', '--recipe', 'driver-career', '--param', String(driver)], env);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBeGreaterThan(0);
    expect((await runCli(['sql', '--recipe', 'driver-career'], env)).code).toBe(2);
  });

  it('reports a SQL error as the server states it, exit 1', async () => {
    const r = await runCli(['sql', 'SELECT * FROM mrp.nope'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('ERROR:  relation "mrp.nope" does not exist (SQLSTATE 42P01)\n');
  });
});
