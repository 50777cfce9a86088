/**
 * `npm run soak`: pitwall left running as a user leaves it, and watched. A real `pitwall worker`
 * on the embedded warehouse (its own PITWALL_DATA_DIR in a temporary directory, DATABASE_URL
 * unset) runs all three jobs every minute against a `pitwall simulate` whose clock moves a day a
 * minute and which faults 10% of requests; a `pitwall serve-sql` serves the warehouse, and a BI
 * client logs in with the credentials it prints and refreshes a cookbook query every 10 s. The
 * worker is killed with SIGKILL halfway and started again. At the end the faults stop, one last
 * run of every job must succeed, the warehouse must equal the simulator's truth, and after the
 * final SIGTERM no PostgreSQL process and no `clients/` entry may remain.
 *
 * Options: --minutes N (default 20), --scale tiny|small (tiny), --seed N (17), --fault-rate 0..1
 * (0.1). Prints a table, writes bench/results/soak-latest.json; exit code 0 when every target is
 * met, 1 when one is missed, 2 for bad options. The processes' logs stay in the temporary
 * directory when a target is missed (its path is printed).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import { loadConfig } from '../src/config.js';
import { openWarehouse, type Warehouse } from '../src/db/open-warehouse.js';
import { createSilentLogger } from '../src/log.js';
import { FAULT_KINDS } from '../src/simulator/options.js';
import { JOB_NAMES } from '../src/sync/jobs.js';
import { diffAgainstTruth } from '../test/helpers/warehouse.js';
import { CHAOS_WEIGHTS } from '../test/reliability/helpers/chaos.js';

import { ROOT } from './lib/child.js';
import { BI_RECIPE, startBiClient, type BiClient } from './lib/soak-bi-client.js';
import { parentOf, postgresProcesses } from './lib/soak-leftovers.js';
import { startPitwall, type PitwallProcess } from './lib/soak-process.js';
import { growthByLife, judge, renderSoak, type SoakFigures } from './lib/soak-report.js';
import { countRuns, readRuns } from './lib/soak-runs.js';
import { sampleWorker, type Sample } from './lib/soak-samples.js';

const out = (line = '') => process.stdout.write(`${line}\n`);
const SAMPLE_EVERY_MS = 10_000;
const BI_EVERY_MS = 10_000;
/** After the restarted worker is up, how long BI failures still count as the restart's. */
const RESTART_GRACE_MS = 60_000;
/** How long the kill may wait, once halfway, for a run to be going: a kill between runs proves less. */
const KILL_WAIT_MS = 60_000;
/** How long the last runs may take once faults stop: the next minute's runs, and a retry. */
const FINAL_WAIT_MS = 5 * 60_000;

function options() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '20' },
      scale: { type: 'string', default: 'tiny' },
      seed: { type: 'string', default: '17' },
      'fault-rate': { type: 'string', default: '0.1' },
    },
  });
  const minutes = Number(values.minutes);
  const seed = Number(values.seed);
  const faultRate = Number(values['fault-rate']);
  if (!(minutes > 0)) throw new Error('--minutes must be a positive number');
  if (!['tiny', 'small'].includes(values.scale)) throw new Error('--scale must be tiny or small');
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  if (!(faultRate >= 0 && faultRate <= 1)) throw new Error('--fault-rate must be a number from 0 to 1');
  return { minutes, scale: values.scale, seed, faultRate };
}

type Options = ReturnType<typeof options>;

async function admin(simUrl: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${simUrl}/__simulator/${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (!res.ok) throw new Error(`simulator ${path}: HTTP ${res.status} ${await res.text()}`);
}

/** The mix of bench/chaos.ts: every kind, `RequestValid: 0` (never retried in a run) rarer. */
function faultConfig(rate: number) {
  return { rate, kinds: FAULT_KINDS.flatMap((k) => Array<string>(CHAOS_WEIGHTS[k]).fill(k)), slowMs: 5000, retryAfterSeconds: 1 };
}

/** The first run seen going (`job #id`) within `limitMs`, or null. */
async function runInProgress(pool: Warehouse['pool'], limitMs: number): Promise<string | null> {
  const deadline = performance.now() + limitMs;
  do {
    const { rows } = await pool.query<{ job: string; run_id: number }>(
      `SELECT job, run_id::int AS run_id FROM pitwall.sync_runs WHERE status = 'running' ORDER BY job = 'full' DESC, run_id DESC LIMIT 1`,
    );
    if (rows[0]) return `${rows[0].job} #${rows[0].run_id}`;
    await sleep(1000);
  } while (performance.now() < deadline);
  return null;
}

/** Waits until a run of every job that started after `since` has succeeded, up to `limitMs`. */
async function lastRunsSucceed(pool: Warehouse['pool'], since: Date, limitMs: number): Promise<boolean> {
  const deadline = performance.now() + limitMs;
  while (performance.now() < deadline) {
    const { rows } = await pool.query<{ job: string }>(
      `SELECT DISTINCT job FROM pitwall.sync_runs WHERE started_at > $1 AND status = 'succeeded'`,
      [since],
    );
    if (JOB_NAMES.every((job) => rows.some((r) => r.job === job))) return true;
    await sleep(5000);
  }
  return false;
}

async function soak(o: Options, dir: string, since: number): Promise<Omit<SoakFigures, 'targets'>> {
  const startedAt = new Date().toISOString();
  const load0 = loadavg()[0]!;
  const dataDir = join(dir, 'data');
  const log = (name: string) => join(dir, `${name}.log`);
  const at = () => Math.round(performance.now() - since);
  const procs: PitwallProcess[] = [];
  const start = (name: string, args: string[], env: Record<string, string>) => {
    const p = startPitwall(name, args, env, log(name), since);
    procs.push(p);
    return p;
  };
  let monitor: Warehouse | undefined;
  let bi: BiClient | undefined;
  const timers: NodeJS.Timeout[] = [];
  const samples: Sample[] = [];
  const postmasters = new Set<number>();
  const kill: SoakFigures['kill'] = { atMs: null, duringRun: null, restartedAtMs: null, windowEndMs: null };
  const final: SoakFigures['final'] = { daysAdvanced: 0, faultsOffAtMs: null, lastRunsSucceeded: false, waitedMs: 0 };
  let stoppingAtMs = Infinity;
  let worker1: PitwallProcess | undefined;
  try {
    const sim = start('simulate', ['simulate', '--port', '0', '--scale', o.scale, '--seed', String(o.seed)], {});
    const simUrl = (await sim.waitForLine(/MRP_API_BASE_URL=(\S+)/, 60_000))[1]!;
    const simKey = (await sim.waitForLine(/MRP_API_KEY=(\S+)/, 5_000))[1]!;
    await admin(simUrl, 'faults', faultConfig(o.faultRate));

    const pitwallEnv = { PITWALL_DATA_DIR: dataDir, PITWALL_LOG_LEVEL: 'info' };
    const workerEnv = {
      ...pitwallEnv,
      MRP_API_BASE_URL: simUrl,
      MRP_API_KEY: simKey,
      PITWALL_CRON_LIVE: '* * * * *',
      PITWALL_CRON_SEASON: '* * * * *',
      PITWALL_CRON_FULL: '* * * * *',
      // A stalled body (the `slow` fault) costs 2 s, not the default 30 s, so a run fits its minute.
      PITWALL_REQUEST_TIMEOUT_MS: '2000',
    };
    let worker = (worker1 = start('worker-1', ['worker'], workerEnv));
    await worker.waitForLine(/"worker started"/, 120_000);
    const workerUpAt = at();
    out(`soak: worker ${worker.pid} up at ${(workerUpAt / 1000).toFixed(0)} s; data and logs in ${dir}`);

    const serve = start('serve-sql', ['serve-sql'], pitwallEnv);
    const served = await serve.waitForLine(/served on 127\.0\.0\.1:(\d+), read-only for role (\S+)/, 60_000);
    const passwordFile = (await serve.waitForLine(/the password in (\S+),/, 5_000))[1]!;
    const serverPort = Number(served[1]);
    bi = startBiClient({ host: '127.0.0.1', port: serverPort, user: served[2]!, password: readFileSync(passwordFile, 'utf8').trim() }, BI_EVERY_MS, since);
    monitor = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dataDir }), createSilentLogger(), { poolMax: 2, purpose: 'soak monitor' });
    const pool = monitor.pool;
    out(`soak: serve-sql ${serve.pid} on port ${serverPort}; the BI client refreshes ${BI_RECIPE} every ${BI_EVERY_MS / 1000} s`);

    let life = 1;
    let sampling: Promise<void> = Promise.resolve();
    const sampleNow = () =>
      (sampling = sampling.then(async () => {
        const s = await sampleWorker(pool, serverPort, worker.pid, life, at()).catch(() => null);
        if (s) samples.push(s);
        const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid').catch(() => ({ rows: [] }));
        const postmaster = rows[0] ? parentOf(rows[0].pid) : null;
        if (postmaster) postmasters.add(postmaster);
      }));
    timers.push(setInterval(sampleNow, SAMPLE_EVERY_MS));
    // A failed advance shows as fewer days in the report, not as an error that ends the soak.
    const clock = setInterval(() => void admin(simUrl, 'clock', { advanceDays: 1 }).then(() => (final.daysAdvanced += 1), () => undefined), 60_000);
    timers.push(clock);
    void sampleNow();

    const runMs = o.minutes * 60_000;
    await sleep(Math.max(0, workerUpAt + runMs / 2 - at()));
    kill.duringRun = await runInProgress(pool, KILL_WAIT_MS);
    kill.atMs = at();
    worker.child.kill('SIGKILL');
    await worker.exited;
    out(`soak: worker ${worker.pid} killed with SIGKILL at ${(kill.atMs / 60_000).toFixed(1)} min, ${kill.duringRun ? `during run ${kill.duringRun}` : 'between runs'}; starting it again`);
    worker = start('worker-2', ['worker'], workerEnv);
    life = 2;
    await worker.waitForLine(/"worker started"/, 120_000);
    kill.restartedAtMs = at();
    kill.windowEndMs = kill.restartedAtMs + RESTART_GRACE_MS;
    await sleep(Math.max(0, workerUpAt + runMs - at()));

    clearInterval(clock);
    await admin(simUrl, 'faults', {});
    final.faultsOffAtMs = at();
    out(`soak: faults off at ${(final.faultsOffAtMs / 60_000).toFixed(1)} min; waiting for a last run of every job`);
    final.lastRunsSucceeded = await lastRunsSucceed(pool, new Date(), FINAL_WAIT_MS);
    final.waitedMs = at() - final.faultsOffAtMs;
    const differences = await diffAgainstTruth(pool, simUrl);
    await sampleNow();
    for (const t of timers) clearInterval(t);

    // The worker first, so that the runs are counted once none can be going any more.
    stoppingAtMs = at();
    await worker.stop(60_000);
    const runs = countRuns(await readRuns(pool));
    await bi.stop();
    await monitor.close();
    monitor = undefined;
    await serve.stop(60_000);
    const leftovers = await settledLeftovers(dataDir, postmasters);
    await sim.stop(10_000);

    const biFailures = bi.failures.filter((f) => kill.atMs === null || f.atMs < kill.atMs || f.atMs > kill.windowEndMs!);
    return {
      startedAt,
      minutes: o.minutes,
      scale: o.scale,
      seed: o.seed,
      faultRate: o.faultRate,
      machine: { cores: cpus().length, node: process.versions.node, loadAverage: { start: load0, end: loadavg()[0]! } },
      kill,
      runs,
      final,
      bi: { recipe: BI_RECIPE, queries: bi.queries, reconnects: bi.reconnects, failures: bi.failures, failuresOutsideRestart: biFailures.length, rowsLastSeen: bi.rowsLastSeen },
      samples,
      growth: growthByLife(samples),
      truth: { matches: Object.keys(differences).length === 0, differences },
      unexpectedExits: procs
        .filter((p) => p.exit && p.exit.atMs < stoppingAtMs && !(p === worker1 && p.exit.signal === 'SIGKILL'))
        .map((p) => ({ name: p.name, ...p.exit! })),
      leftovers,
    };
  } finally {
    for (const t of timers) clearInterval(t);
    await bi?.stop();
    await monitor?.close().catch(() => undefined);
    // Whatever went wrong above, no child outlives the soak.
    await Promise.all(procs.map((p) => p.stop(10_000)));
  }
}

/**
 * What is left of the warehouse once every pitwall process is gone: the last one to leave stops
 * the server, which may take a few seconds after its exit (a checkpoint). Looks for 30 s.
 */
async function settledLeftovers(dataDir: string, postmasters: Set<number>): Promise<SoakFigures['leftovers']> {
  const look = () => {
    const clientsDir = join(dataDir, 'clients');
    return { postgresPids: postgresProcesses(dataDir, postmasters), clientEntries: existsSync(clientsDir) ? readdirSync(clientsDir) : [] };
  };
  for (let i = 0; i < 30; i++) {
    const l = look();
    if (l.postgresPids.length === 0 && l.clientEntries.length === 0) return l;
    await sleep(1000);
  }
  return look();
}

async function main(): Promise<number> {
  let o: Options;
  try {
    o = options();
  } catch (err) {
    process.stderr.write(`soak: ${(err as Error).message}\n`);
    return 2;
  }
  const since = performance.now();
  const dir = mkdtempSync('/tmp/pitwall-soak-');
  // mkdtemp makes it mode 700; as root, the embedded server's own user must reach the data in it.
  chmodSync(dir, 0o755);
  out(`soak: ${o.minutes} min, ${o.scale} world, seed ${o.seed}, ${o.faultRate * 100}% faults, kill -9 of the worker halfway`);
  let figures: Omit<SoakFigures, 'targets'>;
  try {
    figures = await soak(o, dir, since);
  } catch (err) {
    process.stderr.write(`soak: ${(err as Error).message}\nlogs: ${dir}\n`);
    return 1;
  }
  const result: SoakFigures = { ...figures, targets: judge(figures) };
  out();
  out(renderSoak(result));
  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, 'soak-latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  const missed = Object.values(result.targets).some((t) => t.met === false);
  if (missed) out(`\nlogs of every process: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  out(`results: bench/results/soak-latest.json`);
  return missed ? 1 : 0;
}

process.exitCode = await main();
