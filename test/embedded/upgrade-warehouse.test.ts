import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RELATIONSHIPS } from '../../src/analytics/relationships.js';
import { createPool } from '../../src/db/pool.js';
import { postgresBinaries, PREVIOUS_MAJOR } from '../../src/embedded/binaries.js';
import { CLUSTERS_DIR } from '../../src/embedded/cluster-home.js';
import { clusterMajor } from '../../src/embedded/cluster-version.js';
import { alive } from '../../src/embedded/data-dir-lock.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { openEmbeddedServer } from '../../src/embedded/server.js';
import { postmasterPid } from '../../src/embedded/side-server.js';
import { rowsWritten } from '../../src/sync/counters.js';
import { runCli, startCli } from '../helpers/cli.js';
import { useSimulator } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { readerClient, stderrLines } from './serving.js';
import { makePreviousWarehouse, makePreviousWarehouseBehind, warehouseState, type WarehouseState } from './warehouse-17.js';

const NOW = postgresBinaries(serverUser()).major;
const OLD = PREVIOUS_MAJOR;
// Each test starts a few pitwall processes and servers: on a busy two-core machine, tens of seconds.
const SLOW_MS = 120_000;

describe(`a warehouse made by PostgreSQL ${OLD}`, () => {
  const sim = useSimulator({ scale: 'tiny', seed: 31 });
  const dir = join(warehouseTempDir('pitwall-upgrade'), 'warehouse');
  const data = join(dir, 'postgres');
  let before: WarehouseState;
  let env: Record<string, string>;
  beforeAll(async () => {
    before = await makePreviousWarehouse(dir, sim);
    env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
  }, SLOW_MS);
  afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));

  const refusal = () =>
    `pitwall: cannot open the warehouse at ${dir}: it was made by PostgreSQL ${OLD} and this pitwall runs ${NOW}; run \`pitwall upgrade-warehouse\` (it keeps the old directory)`;

  it('is refused in one line naming pitwall upgrade-warehouse by every command that would open it, and left as it was', async () => {
    const commands = [['status'], ['sql', 'SELECT 1'], ['sync'], ['worker'], ['serve-sql'], ['drift'], ['rebuild'], ['migrate']];
    const results = await Promise.all(commands.map((args) => runCli(args, env)));
    for (const [i, r] of results.entries()) {
      expect({ command: commands[i]![0], code: r.code, stderr: stderrLines(r.stderr) }).toEqual({ command: commands[i]![0], code: 1, stderr: [refusal()] });
    }
    expect(clusterMajor(data)).toBe(OLD);
    expect(postmasterPid(data)).toBeNull();
  }, SLOW_MS);

  it('is upgraded by pitwall upgrade-warehouse, also when a first run is killed in the middle of its copy', async () => {
    const killed = startCli(['upgrade-warehouse'], env);
    await new Promise<void>((resolve, reject) => {
      let said = '';
      killed.child.stderr!.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('"msg":"copied 1 of')) resolve();
      });
      void killed.exited.then((r) => reject(new Error(`upgrade-warehouse ended before its copy: ${r.code} ${r.stderr}`)));
    });
    killed.child.kill('SIGKILL');
    await killed.exited;
    const building = `${data}.pg${NOW}.new`;
    // Killed mid-way: the new cluster half-built beside the old one, its server and the old one's still running.
    expect(existsSync(building)).toBe(true);
    expect(clusterMajor(data)).toBe(OLD);
    const leftRunning = [postmasterPid(building), postmasterPid(data)].filter((pid): pid is number => pid !== null && alive(pid));
    expect(leftRunning).toHaveLength(2);
    expect(stderrLines((await runCli(['status'], env)).stderr)).toEqual([refusal()]);

    const r = await runCli(['upgrade-warehouse'], env);
    expect(r.code).toBe(0);
    const kept = `${data}.pg${OLD}`;
    expect(r.stdout).toMatch(new RegExp(`^upgraded the embedded warehouse in ${dir} from PostgreSQL ${OLD} to ${NOW} in [\\d.]+ s: \\d+ tables, \\d+ rows, each table checked`));
    expect(r.stdout).toContain(`the old cluster is kept in ${kept}`);
    expect(r.stdout).toContain(`to go back: stop pitwall, move ${data} aside and ${kept} to ${data}`);
    expect([clusterMajor(data), clusterMajor(kept), existsSync(building)]).toEqual([NOW, OLD, false]);
    expect(leftRunning.filter(alive)).toEqual([]);
  }, SLOW_MS);

  it('holds afterwards what it held: every table and the sync state, so the next sync writes nothing', async () => {
    const server = await openEmbeddedServer({ dir, purpose: 'the test' });
    const pool = createPool(server.url, { max: 4 });
    try {
      const { lastRunId, ...after } = await warehouseState(pool);
      expect(after).toEqual({ checksums: before.checksums, pitwall: before.pitwall });
      expect(lastRunId).toBe(before.lastRunId);
      const summary = await syncOnce({ pool, url: server.url }, sim);
      expect(summary.status).toBe('succeeded');
      expect(rowsWritten(summary.tables)).toBe(0);
      // The identity sequences went along: the run got the next id, not one already used.
      expect(summary.runId).toBeGreaterThan(before.lastRunId);
    } finally {
      await pool.end();
      await server.close();
    }
  }, SLOW_MS);

  it('lets a BI tool log in as before: the reader role with its password, on the port the warehouse had', async () => {
    const server = await openEmbeddedServer({ dir, purpose: 'the test' });
    const reader = readerClient(dir, server.port);
    try {
      expect(server.port).toBe(before.port);
      await reader.connect();
      const { rows } = await reader.query<{ n: number }>('SELECT count(*)::int AS n FROM mrp.events');
      expect(rows[0]?.n).toBe(sim.world.truth().events.length);
      // Every join is a foreign key in the catalog the tool reads, declared by the upgrade itself.
      const keys = await reader.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_constraint WHERE contype = 'f' AND connamespace::regnamespace::text IN ('mrp', 'pitwall', 'analytics')`,
      );
      expect(keys.rows[0]?.n).toBe(RELATIONSHIPS.length);
    } finally {
      await reader.end().catch(() => undefined);
      await server.close();
    }
  }, SLOW_MS);

  it('is migrated by pitwall migrate to no job queue schema, and run again the upgrade changes nothing', async () => {
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code).toBe(0);
    const again = await runCli(['upgrade-warehouse'], env);
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')[0]).toBe(`the embedded warehouse in ${dir} already runs PostgreSQL ${NOW}: nothing to upgrade`);
    const queue = await runCli(['sql', '--csv', "SELECT count(*) AS schemas FROM pg_namespace WHERE nspname = 'graphile_worker'"], env);
    expect(queue.stdout).toBe('schemas\n0\n');
  }, SLOW_MS);
});

describe(`a warehouse made by PostgreSQL ${OLD} under an earlier pitwall, migrations pending`, () => {
  const dir = join(warehouseTempDir('pitwall-upgrade-behind'), 'warehouse');
  afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));

  it('is left ready to use by pitwall upgrade-warehouse alone: its pending migrations applied, no second command', async () => {
    await makePreviousWarehouseBehind(dir, 4);
    const r = await runCli(['upgrade-warehouse'], { PITWALL_DATA_DIR: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}4 pending migrations applied in [\d.]+ s: the warehouse is ready to use$/m);
    expect(r.stdout).not.toContain('pitwall migrate');
    const runs = await runCli(['sql', '--csv', 'SELECT source, job FROM pitwall.sync_runs'], { PITWALL_DATA_DIR: dir });
    expect({ code: runs.code, stdout: runs.stdout, stderr: stderrLines(runs.stderr) }).toEqual({ code: 0, stdout: 'source,job\ndefault,full\n', stderr: [] });
  }, SLOW_MS);
});

/** Removes the clusters that belonged to directories under `parent` (a real path), as a user would. */
function removeClustersOf(parent: string): void {
  for (const name of existsSync(CLUSTERS_DIR) ? readdirSync(CLUSTERS_DIR) : []) {
    const home = join(CLUSTERS_DIR, name);
    const owner = existsSync(join(home, 'warehouse-dir')) ? readFileSync(join(home, 'warehouse-dir'), 'utf8') : '';
    if (owner.startsWith(`${parent}/`)) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

// As root (containers, CI) the server runs as postgres or nobody, who cannot pass through a
// mode-700 directory: the cluster lives in CLUSTERS_DIR, linked from the warehouse directory,
// and the old binaries run from a copy in the binary cache.
describe(`a warehouse made by PostgreSQL ${OLD} inside a mode-700 directory`, () => {
  const sim = useSimulator({ scale: 'tiny', seed: 32 });
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'pitwall-private-upgrade-')));
  const dir = join(parent, 'warehouse');
  afterAll(() => {
    removeClustersOf(parent);
    rmSync(parent, { recursive: true, force: true });
  });

  it('is upgraded where its link points, the old cluster kept beside the new one', async () => {
    await makePreviousWarehouse(dir, sim);
    const link = join(dir, 'postgres');
    const data = serverUser() ? readlinkSync(link) : link;
    if (serverUser()) expect(dirname(dirname(data))).toBe(CLUSTERS_DIR);
    const r = await runCli(['upgrade-warehouse'], { PITWALL_DATA_DIR: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`the old cluster is kept in ${data}.pg${OLD}`);
    if (serverUser()) expect(readlinkSync(link)).toBe(data);
    expect([clusterMajor(data), clusterMajor(`${data}.pg${OLD}`)]).toEqual([NOW, OLD]);
    const events = await runCli(['sql', '--csv', 'SELECT count(*) AS n FROM mrp.events'], { PITWALL_DATA_DIR: dir });
    expect(events.stdout).toBe(`n\n${sim.world.truth().events.length}\n`);
  }, SLOW_MS);
});
