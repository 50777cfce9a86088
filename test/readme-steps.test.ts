import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import { serving } from './embedded/serving.js';
import { startCli, CHECKOUT_PITWALL_BIN } from './helpers/cli.js';
import { freePort } from './helpers/ports.js';
import { warehouseTempDir } from './helpers/temp-dir.js';
import { diffAgainstTruth, fetchTruth } from './helpers/warehouse.js';

/**
 * The README's ```sh blocks, read from the file and run as a newcomer pastes them: in bash, in a
 * fresh directory, as real processes. `npx pitwall` is a shim named `npx` first on PATH that runs
 * this checkout's bin/pitwall.js (what npx finds in a clone after `npm install`), writing its pid
 * under the subcommand's name first so the test can signal the very process (exec keeps the pid).
 * Every node process loads test/helpers/loopback-only.mjs, which refuses and records a connection
 * to anything but loopback: the real API is never reached.
 */

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const GUARD = fileURLToPath(new URL('./helpers/loopback-only.mjs', import.meta.url));
const BLOCKS = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

/**
 * What each block is, by a rule on its text; a block no rule names fails the test until one does.
 * - real key: it holds `MRP_API_KEY=...` (a key to fill in) and unsets MRP_API_BASE_URL, so it
 *   would reach the real API: never run;
 * - demo and tests: `npm run demo` is test/embedded/demo.test.ts's, `npm test` is this suite (and
 *   `npm install` made this checkout): not run twice;
 * - simulator, worker and first run: run here.
 */
const RULES = {
  realKey: (b: string) => /MRP_API_KEY=\.\.\./.test(b),
  demo: (b: string) => /\bnpm run demo\b/.test(b),
  tests: (b: string) => /^npm test\b/m.test(b),
  simulator: (b: string) => /npx pitwall simulate\b/.test(b),
  worker: (b: string) => /npx pitwall worker\b/.test(b) && /MRP_API_KEY=sim-/.test(b),
  firstRun: (b: string) => /npx pitwall probe\b/.test(b),
} as const;
type Kind = keyof typeof RULES;
const kindsOf = (b: string) => (Object.keys(RULES) as Kind[]).filter((k) => RULES[k](b));
const only = (kind: Kind): string => {
  const found = BLOCKS.filter((b) => kindsOf(b).includes(kind));
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

const root = warehouseTempDir('pitwall-readme');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const shims = join(root, 'bin');
const pids = join(root, 'pids');
const loopbackLog = join(root, 'non-loopback.log');
mkdirSync(shims);
mkdirSync(pids);
writeFileSync(
  join(shims, 'npx'),
  `#!/bin/sh\n[ "$1" = pitwall ] || { echo "npx shim: only pitwall is installed here" >&2; exit 127; }\nshift\necho $$ > "${pids}/$1"\nexec "${process.execPath}" "${CHECKOUT_PITWALL_BIN}" "$@"\n`,
);
chmodSync(join(shims, 'npx'), 0o755);

/**
 * A newcomer's shell: PATH with the shim, HOME, and nothing of this process's pitwall settings but
 * one: PITWALL_MAX_RPS=0. At the default pace (5 requests a second) the worker's catch-up of the
 * README's small world takes about two minutes; unpaced against the simulator on loopback, seconds.
 */
const shellEnv = (extra: Record<string, string>): Record<string, string> => ({
  PATH: `${shims}:${process.env.PATH ?? ''}`,
  HOME: process.env.HOME ?? '',
  ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
  PITWALL_MAX_RPS: '0',
  NODE_OPTIONS: `--import ${GUARD}`,
  PITWALL_TEST_LOOPBACK_LOG: loopbackLog,
  ...extra,
});

interface Block {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}
const started: Block[] = [];

/** Runs a block in `bash -e` (a failing line stops it, as a careful newcomer would) in `cwd`. */
function runBlock(text: string, cwd: string, env: Record<string, string>): Block {
  mkdirSync(cwd, { recursive: true });
  const child = spawn('bash', ['-e', '-c', text], { cwd, env: shellEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const block = { child, output: () => out, exited };
  started.push(block);
  return block;
}
afterAll(async () => {
  // Whatever a failed test left: each block's process group still running, asked to stop first so a
  // worker stops its embedded server too, then killed.
  const running = started.filter((b) => b.child.exitCode === null && b.child.pid);
  for (const b of running) process.kill(-b.child.pid!, 'SIGTERM');
  await Promise.race([Promise.all(running.map((b) => b.exited)), sleep(15_000)]);
  for (const b of running) if (b.child.exitCode === null) process.kill(-b.child.pid!, 'SIGKILL');
  await Promise.all(started.map((b) => b.exited));
});

/** The pid the shim wrote for `pitwall <command>`, once it has. */
async function pidOf(command: string, block: Block): Promise<number> {
  for (let i = 0; i < 200; i++) {
    // The shim's `echo $$ > file` creates the file before it writes: an empty read is "not yet",
    // never pid 0, which process.kill would take for this process's own group.
    const pid = existsSync(join(pids, command)) ? Number(readFileSync(join(pids, command), 'utf8').trim() || NaN) : NaN;
    if (Number.isInteger(pid) && pid > 1) return pid;
    if (block.child.exitCode !== null) break;
    await sleep(50);
  }
  throw new Error(`pitwall ${command} never started:\n${block.output()}`);
}

/** Waits for `probe` to return a value; the bound is a hang guard, not a budget (a busy runner is slow). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, block: Block, timeoutMs = 200_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (block.child.exitCode !== null) throw new Error(`exited ${block.child.exitCode} before ${what}:\n${block.output()}`);
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    await sleep(200);
  }
  throw new Error(`no ${what} in ${timeoutMs} ms:\n${block.output()}`);
}

describe("the README's sh blocks", () => {
  it('are each named by one rule, and the real-key block is recognised and never run', () => {
    for (const b of BLOCKS) expect(kindsOf(b), b).toHaveLength(1);
    const real = only('realKey');
    expect(real).toMatch(/^unset MRP_API_BASE_URL$/m);
  });

  it('leave a simulator and a worker running as the README says, and SIGTERM stops the worker with exit 0', async () => {
    const [simPort, httpPort] = [await freePort(), await freePort()];
    // The README's fixed ports, rewritten consistently to free ones.
    const sim = runBlock(only('simulator').replaceAll('4010', String(simPort)), join(root, 'newcomer'), {});
    const simPid = await pidOf('simulate', sim);
    const simUrl = `http://127.0.0.1:${simPort}`;
    await until('simulator', async () => ((await fetch(`${simUrl}/__simulator/world`)).ok ? true : undefined), sim);

    const workerText = only('worker').replaceAll('4010', String(simPort)).replaceAll('8080', String(httpPort));
    const worker = runBlock(workerText, join(root, 'newcomer'), { PITWALL_DATA_DIR: join(root, 'newcomer', '.pitwall') });
    const workerPid = await pidOf('worker', worker);
    const page = `http://127.0.0.1:${httpPort}`;
    await until(
      "the catch-up full's success",
      async () => {
        const status = (await (await fetch(`${page}/status.json`)).json()) as { jobs: Array<{ job: string; last_status: string | null }> };
        return status.jobs.some((j) => j.job === 'full' && j.last_status === 'succeeded') ? true : undefined;
      },
      worker,
    );
    expect((await fetch(`${page}/healthz`)).status).toBe(200);
    expect((await fetch(`${simUrl}/__simulator/requests`).then((r) => r.json()) as { total: number }).total).toBeGreaterThan(0);

    process.kill(workerPid, 'SIGTERM');
    expect(await worker.exited, worker.output()).toBe(0);
    process.kill(simPid, 'SIGTERM');
    expect(await sim.exited, sim.output()).toBe(0);
    expect(existsSync(loopbackLog) ? readFileSync(loopbackLog, 'utf8') : '').toBe('');
  });

  it('first run: probe reports the drift, drift --suggest writes shapes.json, and the rebuild with it equals the truth', async () => {
    // The README's block says "with a real key": here the simulator's, started with its drift switch.
    // It lives until the end of the test; the hang guards are the processes' own defaults, since a
    // busy runner takes several times as long as an idle one over the same steps.
    const sim = startCli(['simulate', '--drift', '--port', '0', '--scale', 'tiny'], shellEnv({}));
    let banner = '';
    const simUrl = await new Promise<string>((resolve, reject) => {
      sim.child.stdout!.on('data', (d: Buffer) => {
        banner += d.toString();
        const m = /MRP_API_BASE_URL=(\S+)/.exec(banner);
        if (m) resolve(m[1]!);
      });
      void sim.exited.then((r) => reject(new Error(`simulate exited ${r.code}: ${r.stderr}`)));
    });
    const key = /MRP_API_KEY=(\S+)/.exec(banner)![1]!;
    const dataDir = join(root, 'first-run', '.pitwall');
    const env = { MRP_API_BASE_URL: simUrl, MRP_API_KEY: key, PITWALL_DATA_DIR: dataDir };
    try {
      const block = runBlock(only('firstRun'), join(root, 'first-run'), env);
      expect(await block.exited, block.output()).toBe(0);
      // probe's report names what differs: the field gone from results, the one beside it, the date it refuses.
      expect(block.output()).toMatch(/modelled fields missing from most items:\n(.+\n)*? +Classes\[\]\.Races\[\]\.Results\[\]\.ResultStart +0 /);
      expect(block.output()).toMatch(/Classes\[\]\.Races\[\]\.Results\[\]\.StartPosition /);
      expect(block.output()).toMatch(/ScheduleEvents\[\]\.EventDate .*expected a US date-time/);
      expect(readdirSync(join(root, 'first-run', 'samples')).length).toBeGreaterThan(0);
      const shapes = JSON.parse(readFileSync(join(root, 'first-run', 'shapes.json'), 'utf8')) as { endpoints: object };
      expect(Object.keys(shapes.endpoints)).toEqual(expect.arrayContaining(['results', 'events']));

      const truth = await fetchTruth(simUrl);
      const sqlPort = await freePort();
      const server = await serving(shellEnv({ PITWALL_DATA_DIR: dataDir }), 200_000, ['--port', String(sqlPort)]);
      // A session as a BI tool opens it: the read-only login serve-sql prints.
      const password = readFileSync(join(dataDir, 'reader-password'), 'utf8').trim();
      const pool = new pg.Pool({ host: '127.0.0.1', port: sqlPort, user: 'pitwall_reader', password, database: 'postgres', max: 1 });
      try {
        expect(await diffAgainstTruth(pool, truth)).toEqual({});
      } finally {
        await pool.end();
        server.child.kill('SIGTERM');
        await server.exited;
      }
    } finally {
      sim.child.kill('SIGTERM');
      await sim.exited;
    }
    expect(existsSync(loopbackLog) ? readFileSync(loopbackLog, 'utf8') : '').toBe('');
  });

  it("would record a connection that leaves loopback: the guard the blocks' processes load works", async () => {
    const control = runBlock(`node -e 'fetch("http://127.0.0.2:4010/").catch(() => {})'`, join(root, 'control'), { PITWALL_TEST_LOOPBACK_LOG: join(root, 'control.log') });
    expect(await control.exited).toBe(0);
    expect(readFileSync(join(root, 'control.log'), 'utf8')).toMatch(/ 127\.0\.0\.2\n$/);
  });
});
