import { existsSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { CLUSTERS_DIR } from '../../src/embedded/cluster-home.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { runCli, startCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { useSimulator } from '../helpers/fixture.js';

import { serverRunning, serving, stderrLines } from './serving.js';

// A few pitwall processes and a server start each; tens of seconds on a busy two-core machine.
const SLOW_MS = 120_000;

/**
 * A warehouse directory inside a mode-700 one: as root (containers, CI) its server's user cannot
 * pass through, so its cluster lives under /var/lib/pitwall/clusters, linked from it. Said where
 * a user looks, and removed with it by one command.
 */
describe('a warehouse whose data is kept elsewhere', () => {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'pitwall-private-remove-')));
  const dir = join(parent, 'warehouse');
  const sim = useSimulator({ scale: 'tiny', seed: 5 });
  afterAll(() => {
    // Whatever a failed test left: the linked cluster first, while the link still names it.
    const home = existsSync(join(dir, 'postgres')) && serverUser() ? dirname(readlinkSync(join(dir, 'postgres'))) : null;
    if (home?.startsWith(CLUSTERS_DIR)) rmSync(home, { recursive: true, force: true });
    rmSync(parent, { recursive: true, force: true });
  });
  const data = () => (serverUser() ? readlinkSync(join(dir, 'postgres')) : join(dir, 'postgres'));

  it('is said once by the worker at its start, naming where and the command that removes both', async () => {
    const env = { PITWALL_DATA_DIR: dir, MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', PITWALL_CATCH_UP: 'off' };
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const worker = startCli(['worker'], env, SLOW_MS);
    let said = '';
    await new Promise<void>((resolve, reject) => {
      worker.child.stderr!.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('"msg":"worker started"')) resolve();
      });
      void worker.exited.then((r) => reject(new Error(`the worker ended: ${r.code} ${r.stderr}`)));
    });
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(EXIT.ok);
    const lines = stderrLines(said).filter((l) => l.includes('remove-warehouse'));
    if (!serverUser()) return void expect(lines).toEqual([]);
    expect(dirname(dirname(data()))).toBe(CLUSTERS_DIR);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`the PostgreSQL data of the embedded warehouse in ${dir} (`);
    expect(lines[0]).toMatch(/ \([1-9]\d* MB\) is kept in /);
    expect(lines[0]).toContain(` is kept in ${data()} (linked from ${dir}/postgres)`);
  }, SLOW_MS);

  it('is removed with its cluster by pitwall remove-warehouse --yes; without --yes it says what it would remove', async () => {
    const home = dirname(data());
    const named = serverUser() ? ` and its cluster in ${home}` : '';
    const asked = await runCli(['remove-warehouse'], { PITWALL_DATA_DIR: dir });
    expect([asked.code, stderrLines(asked.stderr)]).toEqual([
      EXIT.usage,
      [`pitwall: this would remove the embedded warehouse in ${dir}${named}, every row in it; run again with --yes to remove it`],
    ]);
    expect(existsSync(home)).toBe(true);
    const r = await runCli(['remove-warehouse', '--yes'], { PITWALL_DATA_DIR: dir });
    expect([r.code, r.stdout]).toEqual([EXIT.ok, `removed the embedded warehouse in ${dir}${named}\n`]);
    expect([existsSync(dir), existsSync(home), serverRunning(dir)]).toEqual([false, false, false]);
    const again = await runCli(['remove-warehouse', '--yes'], { PITWALL_DATA_DIR: dir });
    expect([again.code, stderrLines(again.stderr)]).toEqual([EXIT.usage, [`pitwall: ${dir} holds no embedded warehouse; check PITWALL_DATA_DIR`]]);
  }, SLOW_MS);
});

describe('a warehouse in use', () => {
  it('is not removed while serve-sql serves it: one line naming the process, exit 1, everything left', async () => {
    const dir = copyEmbeddedTemplate();
    const served = await serving({ PITWALL_DATA_DIR: dir }, SLOW_MS);
    try {
      const r = await runCli(['remove-warehouse', '--yes'], { PITWALL_DATA_DIR: dir });
      expect([r.code, stderrLines(r.stderr)]).toEqual([
        EXIT.failed,
        [`pitwall: the embedded warehouse in ${dir} is in use by pitwall process ${served.child.pid}; stop it (a worker, serve-sql, a sync) and run pitwall remove-warehouse again`],
      ]);
      expect([existsSync(join(dir, 'password')), serverRunning(dir)]).toEqual([true, true]);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, SLOW_MS);
});
