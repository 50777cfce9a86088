import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { describe, expect, inject, it, onTestFinished } from 'vitest';

import { createPool } from '../src/db/pool.js';

import { pids, readOr } from './helpers/leaks.js';
import { warehouseTempDir } from './helpers/temp-dir.js';
import { processesOf, serversOf } from './setup/run-watchdog.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');

/** Polls `check` every 100 ms until it holds or `ms` pass; returns whether it held. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/** Processes whose command line names `dir`: a postmaster (-D), the watchdog (its argument). */
function processesNaming(dir: string): string[] {
  return pids()
    .map((pid) => `${pid}: ${readOr(`/proc/${pid}/cmdline`, '').replaceAll('\0', ' ')}`)
    .filter((line) => line.includes(dir));
}

/**
 * A real `vitest run` of the suite's setup around one file of test/setup/leaky/ that leaves
 * something behind and says so in `ready`: `holds-a-server` (no TEST_DATABASE_URL, so the run
 * starts its own server and the embedded template, and the file a third server) or
 * `leaves-a-database` (on this run's server, which outlives the run). TMPDIR is a directory of
 * this test's, so everything the run makes is in it.
 */
function startRun(file: 'holds-a-server' | 'leaves-a-database', hold: 'wait' | 'fail', env: Record<string, string> = {}) {
  const tmp = warehouseTempDir('pitwall-stopped-run');
  const ready = join(mkdtempSync(join(tmpdir(), 'pitwall-ready-')), 'ready');
  onTestFinished(() => rmSync(tmp, { recursive: true, force: true }));
  onTestFinished(() => rmSync(join(ready, '..'), { recursive: true, force: true }));
  const child = spawn(process.execPath, [VITEST, 'run', '--config', 'test/setup/leaky/vitest.suite.config.ts', file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', TMPDIR: tmp, PITWALL_TEST_READY: ready, PITWALL_TEST_HOLD: hold, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  return { tmp, ready, child, exited, output: () => output };
}

/** Whatever the run made: its servers (relocated ones too), processes naming its directory or in it, files. */
function leftBy(tmp: string): string[] {
  return [
    ...[...serversOf(tmp)].map(([pid, data]) => `server ${pid} on ${data}`),
    ...processesNaming(tmp),
    // A test process's command line names nothing (`node (vitest 1)`); its TMPDIR does.
    ...processesOf(tmp).map((pid) => `process ${pid} with TMPDIR in it: ${readOr(`/proc/${pid}/cmdline`, '(ended)').replaceAll('\0', ' ')}`),
    ...readdirSync(tmp),
  ];
}

async function stopMidRun(signal: NodeJS.Signals, child: ChildProcess, exited: Promise<number | null>) {
  child.kill(signal);
  // Vitest ends its workers and exits on SIGINT; a bound, then the hard way.
  if (!(await Promise.race([exited.then(() => true), sleep(60_000).then(() => false)]))) child.kill('SIGKILL');
  await exited;
}

describe('a test run leaves no server and no directory behind (test/setup/run-dir.ts)', () => {
  it.each(['SIGINT', 'SIGKILL'] as const)('when it is stopped mid-run with %s', async (signal) => {
    const run = startRun('holds-a-server', 'wait');
    expect(await within(180_000, () => existsSync(run.ready) || run.child.exitCode !== null), run.output()).toBe(true);
    expect(existsSync(run.ready), run.output()).toBe(true);
    // The file's own server at least (the run's starts there too, unless a container gives it one).
    expect(serversOf(run.tmp).size, run.output()).toBeGreaterThanOrEqual(1);
    await stopMidRun(signal, run.child, run.exited);
    expect(await within(30_000, () => leftBy(run.tmp).length === 0), leftBy(run.tmp).join('\n')).toBe(true);
  }, 300_000);

  it('when it ends with a failed test that left its server running', async () => {
    const run = startRun('holds-a-server', 'fail');
    const code = await run.exited;
    expect(code, run.output()).toBe(1);
    expect(existsSync(run.ready)).toBe(true);
    expect(run.output()).toContain('failed on purpose');
    // The teardown swept: no server and no file is left the moment the run has exited; the
    // watchdog it ended goes a moment later.
    expect(serversOf(run.tmp)).toEqual(new Map());
    expect(readdirSync(run.tmp)).toEqual([]);
    expect(await within(10_000, () => leftBy(run.tmp).length === 0), leftBy(run.tmp).join('\n')).toBe(true);
  }, 300_000);
});

/** Whether the tests' server has a database of that name. */
async function databaseExists(name: string): Promise<boolean> {
  const admin = createPool(inject('pgAdminUrl'), { max: 1 });
  try {
    return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

describe("a test run drops the databases it made on the tests' server (test/setup/run-databases.ts)", () => {
  const onThisServer = () => ({ TEST_DATABASE_URL: inject('pgAdminUrl') });

  it('when a file failed before its database was dropped', async () => {
    const run = startRun('leaves-a-database', 'fail', onThisServer());
    expect(await run.exited, run.output()).toBe(1);
    expect(run.output()).toContain('failed on purpose');
    const name = readFileSync(run.ready, 'utf8');
    expect(name, run.output()).toMatch(/^pitwall_test_\d+_[0-9a-f]+$/);
    expect(await databaseExists(name)).toBe(false);
  });

  it('when it is killed with SIGKILL, through its watchdog', async () => {
    const run = startRun('leaves-a-database', 'wait', onThisServer());
    expect(await within(120_000, () => existsSync(run.ready) || run.child.exitCode !== null), run.output()).toBe(true);
    const name = readFileSync(run.ready, 'utf8');
    expect(await databaseExists(name)).toBe(true);
    await stopMidRun('SIGKILL', run.child, run.exited);
    expect(await within(30_000, async () => !(await databaseExists(name)))).toBe(true);
    expect(await within(30_000, () => leftBy(run.tmp).length === 0), leftBy(run.tmp).join('\n')).toBe(true);
  });
});
