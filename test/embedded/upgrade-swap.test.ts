import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { postgresBinaries, PREVIOUS_MAJOR } from '../../src/embedded/binaries.js';
import { clusterMajor, UPGRADE_MARKER, upgradePaths } from '../../src/embedded/cluster-version.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { settleUpgrade, swapIn } from '../../src/embedded/upgrade-swap.js';
import { runCli } from '../helpers/cli.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { stderrLines } from './serving.js';

const OLD = PREVIOUS_MAJOR;
const NOW = postgresBinaries(serverUser()).major;

/** A stand-in for a cluster: what the upgrade's moves look at is its PG_VERSION (and the marker). */
function fakeCluster(path: string, major: number, complete = false): void {
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'PG_VERSION'), `${major}\n`);
  if (complete) writeFileSync(join(path, UPGRADE_MARKER), 'made by the test\n');
}

function setUp() {
  const dir = warehouseTempDir('pitwall-upgrade-swap');
  return upgradePaths(join(dir, 'postgres'), OLD, NOW);
}

describe('an upgrade interrupted anywhere', () => {
  it('between its two renames is finished: the complete new cluster moves in, the old one stays kept', () => {
    const paths = setUp();
    fakeCluster(paths.kept, OLD);
    fakeCluster(paths.building, NOW, true);
    expect(settleUpgrade(paths)).toEqual({ state: 'finished' });
    expect([clusterMajor(paths.data), clusterMajor(paths.kept), existsSync(paths.building)]).toEqual([NOW, OLD, false]);
  });

  it('before its new cluster was complete starts over from the old one, put back in place', () => {
    const paths = setUp();
    fakeCluster(paths.kept, OLD);
    fakeCluster(paths.building, NOW);
    expect(settleUpgrade(paths)).toEqual({ state: 'build' });
    expect([clusterMajor(paths.data), existsSync(paths.kept), existsSync(paths.building)]).toEqual([OLD, false, false]);
  });

  it('with its new cluster complete but not swapped in builds it again: the old one may have changed since', () => {
    const paths = setUp();
    fakeCluster(paths.data, OLD);
    fakeCluster(paths.building, NOW, true);
    fakeCluster(`${paths.building}.init`, NOW);
    expect(settleUpgrade(paths)).toEqual({ state: 'build' });
    expect([clusterMajor(paths.data), existsSync(paths.building), existsSync(`${paths.building}.init`)]).toEqual([OLD, false, false]);
  });

  it('never replaces an old cluster kept by an earlier upgrade', () => {
    const paths = setUp();
    fakeCluster(paths.data, OLD);
    fakeCluster(paths.kept, OLD);
    expect(() => settleUpgrade(paths)).toThrow(`${paths.kept} already exists`);
    expect([clusterMajor(paths.data), clusterMajor(paths.kept)]).toEqual([OLD, OLD]);
  });

  it('swaps by renames, marking the new cluster first', () => {
    const paths = setUp();
    fakeCluster(paths.data, OLD);
    fakeCluster(paths.building, NOW);
    swapIn(paths, null, 'the note');
    expect([clusterMajor(paths.data), clusterMajor(paths.kept), readFileSync(join(paths.data, UPGRADE_MARKER), 'utf8')]).toEqual([NOW, OLD, 'the note\n']);
  });

  it('is refused by the next command in one line, rather than a fresh cluster made where the old one was', async () => {
    const paths = setUp();
    const dir = join(paths.data, '..');
    writeFileSync(join(dir, 'password'), 'test-password\n', { mode: 0o600 });
    fakeCluster(paths.kept, OLD);
    const r = await runCli(['status'], { PITWALL_DATA_DIR: dir });
    expect(r.code).toBe(1);
    expect(stderrLines(r.stderr)).toEqual([
      `pitwall: cannot open the warehouse at ${dir}: an upgrade of it from PostgreSQL ${OLD} to ${NOW} was interrupted (the old cluster is in ${paths.kept}); run \`pitwall upgrade-warehouse\` to finish it (it keeps the old directory)`,
    ]);
    expect(existsSync(paths.data)).toBe(false);
  });
});
