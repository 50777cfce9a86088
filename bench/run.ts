/**
 * `npm run bench [-- --quick] [-- --only loader,e2e,memory,embedded,continued,sites]` (sites only when named;
 * `--sites N --site-scale tiny --workers 1,3 --worker-jobs J --global-max-rps R [--steady-seconds S]` shape it): pitwall against PostgreSQL's
 * COPY, against the loader a user would write by hand, against the upstream's latency, and the
 * embedded warehouse against a PostgreSQL server; prints a table and writes bench/results/latest.json and the table of docs/performance.md
 * (`--quick`: bench/results/latest-quick.json only; a full run with `--only` lays its sections into
 * latest.json, bench/lib/merge-results.ts).
 *
 * It creates and drops its own databases on the server named by DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres. The figures are timings:
 * nothing here asserts on them, so `--quick` can run in CI as a smoke test.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/pool.js';
import type { Scale } from '../src/simulator/world/types.js';

import { benchContinued, type ContinuedCase } from './continued.js';
import type { benchEndToEnd } from './e2e.js';
import { benchEmbedded } from './embedded.js';
import { ROOT, runBenchChild } from './lib/child.js';
import { serverUrl } from './lib/database.js';
import { assertSameMachine, layInto } from './lib/merge-results.js';
import { PERFORMANCE_DOC, readLatestResults, renderPerformanceDoc } from './lib/performance-doc.js';
import type { Runtime } from './lib/pitwall-runtime.js';
import { judge, renderReport, type BenchResults } from './lib/report.js';
import { resultRows, worldFor } from './lib/result-rows.js';
import { startStatementServer } from './lib/statement-server.js';
import { E2E_CONCURRENCY, E2E_LATENCY_MS } from './lib/sync-setup.js';
import { benchLoader } from './loader.js';
import { benchMemory } from './memory.js';
import { benchSites } from './sites.js';

interface Sizes {
  rows: number;
  repetitions: number;
  naiveRows: number;
  e2eScale: Scale;
  memoryScale: Scale;
  /** Side-by-side syncs of each warehouse for the embedded wall-time ratio. */
  embeddedRuns: number;
  /** Full syncs stopped and continued (docs/reliability.md): the three cases, smaller in --quick. */
  continued: ContinuedCase[];
}

/**
 * The three cases: a full stopped by SIGTERM at half its requests, one killed at 80 %, and
 * a worker's full under a PostgreSQL restart at half its requests.
 */
const continuedCases = (stopped: Scale, killed: Scale, restarted: Scale): ContinuedCase[] => [
  { scale: stopped, stop: 'SIGTERM', at: 0.5, target: 1.05 },
  { scale: killed, stop: 'SIGKILL', at: 0.8, target: 1.1 },
  { scale: restarted, stop: 'restart', at: 0.5, target: 1.1 },
];

const FULL: Sizes = { rows: 200_000, repetitions: 3, naiveRows: 5_000, e2eScale: 'medium', memoryScale: 'large', embeddedRuns: 3, continued: continuedCases('medium', 'large', 'medium') };
const QUICK: Sizes = { rows: 20_000, repetitions: 3, naiveRows: 1_000, e2eScale: 'small', memoryScale: 'small', embeddedRuns: 1, continued: continuedCases('small', 'small', 'small') };
const SECTIONS = ['loader', 'e2e', 'memory', 'embedded', 'continued'] as const;
/** Sections run only when named in --only: several minutes at the upstream's polite rate. */
const ON_REQUEST = ['sites'] as const;

async function postgresVersion(server: string): Promise<string> {
  const pool = createPool(server, { max: 1, applicationName: 'pitwall-bench' });
  try {
    const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version ?? 'unknown';
  } finally {
    await pool.end();
  }
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    rows: { type: 'string' },
    sites: { type: 'string' },
    'steady-seconds': { type: 'string' },
    'site-scale': { type: 'string' },
    workers: { type: 'string' },
    'worker-jobs': { type: 'string' },
    'global-max-rps': { type: 'string' },
  },
});
const sizes: Sizes = { ...(values.quick ? QUICK : FULL), ...(values.rows ? { rows: Number(values.rows) } : {}) };
const only = new Set(values.only ? values.only.split(',') : SECTIONS);
// The full run measures pitwall compiled, as the production image runs it; --quick skips the
// compile and runs bin/pitwall.js as a checkout does.
const RUNTIME: Runtime = values.quick ? 'tsx' : 'dist';
const known: readonly string[] = [...SECTIONS, ...ON_REQUEST];
for (const s of only) if (!known.includes(s)) throw new Error(`--only takes ${known.join(', ')}; got ${s}`);

const server = serverUrl(process.env);
// A full run of some sections alone is laid into the last full run's results (merge-results.ts);
// a run on another machine is refused before anything runs.
const base = !values.quick && values.only ? readLatestResults() : undefined;
if (base) assertSameMachine(base.machine, { cores: cpus().length, node: process.version, postgres: await postgresVersion(server) });
const startLoad = loadavg()[0] ?? 0;
const startedAt = new Date().toISOString();
const log = (text: string) => process.stderr.write(`${text}\n`);
const sections: Pick<BenchResults, 'loader' | 'e2e' | 'noop' | 'rebuild' | 'memory' | 'embedded' | 'continued' | 'sites'> = {};

if (only.has('loader')) {
  log(`loader: building ${sizes.rows} result rows from the simulator...`);
  // Rows are built inside this block so that they can be collected before the syncs run.
  const rows = resultRows(worldFor(sizes.rows), sizes.rows);
  log('loader: COPY, upsertRows (insert, update, unchanged), naive...');
  sections.loader = await benchLoader(server, rows, { repetitions: sizes.repetitions, naiveRows: sizes.naiveRows });
}
if (only.has('e2e')) {
  log(`e2e: two full syncs of the ${sizes.e2eScale} world, then a rebuild, in a child process...`);
  const { e2e, noop, rebuild } = await runBenchChild<Awaited<ReturnType<typeof benchEndToEnd>>>('bench/lib/e2e-process.ts', [
    server,
    sizes.e2eScale,
    String(E2E_LATENCY_MS),
    String(E2E_CONCURRENCY),
  ]);
  Object.assign(sections, { e2e, noop, rebuild });
}
if (only.has('memory')) {
  log(`memory: pitwall sync of the ${sizes.memoryScale} world in a child process${values.quick ? '' : ' (compiling it first)'}...`);
  sections.memory = await benchMemory(server, { scale: sizes.memoryScale, concurrency: E2E_CONCURRENCY, runtime: RUNTIME });
}
if (only.has('embedded')) {
  log(`embedded: pitwall sync of the ${sizes.e2eScale} world on the embedded warehouse and on the server, ${sizes.embeddedRuns} each, then the ${sizes.memoryScale} world embedded...`);
  // bin/pitwall.js on both sides: what differs between them is the warehouse alone.
  sections.embedded = await benchEmbedded(server, {
    scale: sizes.e2eScale,
    memoryScale: sizes.memoryScale,
    runs: sizes.embeddedRuns,
    concurrency: E2E_CONCURRENCY,
    command: [join(ROOT, 'bin/pitwall.js'), 'sync', '--json'],
    runtime: RUNTIME,
  });
}
if (only.has('continued')) {
  const how = (c: ContinuedCase) => (c.stop === 'restart' ? `a worker's ${c.scale} full under a PostgreSQL restart at ${c.at * 100} %` : `a ${c.scale} full stopped by ${c.stop} at ${c.at * 100} %`);
  log(`continued: ${sizes.continued.map(how).join(', ')}, each continued by the next run...`);
  sections.continued = await benchContinued(server, sizes.continued, { concurrency: E2E_CONCURRENCY, latencyMs: E2E_LATENCY_MS });
}
// The workers run at their default number of runs at once unless --worker-jobs says otherwise.
const DEFAULT_WORKER_JOBS = Number(loadConfig({}).workerJobs);
if (only.has('sites')) {
  const base = values.quick
    ? { sites: 3, scale: 'tiny' as const, maxRps: 5, workerJobs: DEFAULT_WORKER_JOBS, workerCounts: [1, 3] }
    : { sites: 12, scale: 'small' as const, maxRps: 5, workerJobs: DEFAULT_WORKER_JOBS, workerCounts: [1, 3] };
  const opts = {
    ...base,
    ...(values.sites ? { sites: Number(values.sites) } : {}),
    ...(values['site-scale'] ? { scale: values['site-scale'] as Scale } : {}),
    ...(values.workers ? { workerCounts: values.workers.split(',').map(Number) } : {}),
    ...(values['worker-jobs'] ? { workerJobs: Number(values['worker-jobs']) } : {}),
    globalMaxRps: Number(values['global-max-rps'] ?? 0),
    ...(values['steady-seconds'] ? { steadyMs: Number(values['steady-seconds']) * 1000 } : {}),
    statements: true,
    runtime: RUNTIME,
  };
  log(`sites: ${opts.sites} ${opts.scale} sites at ${opts.maxRps} requests/s each, loaded by ${opts.workerCounts.join(' and then by ')} worker(s), on a server of its own that counts statements...`);
  // A server of the bench's own, with pg_stat_statements loaded, so that the workers' statements
  // can be counted (a running server's preloaded libraries cannot be changed).
  const statementServer = await startStatementServer();
  try {
    sections.sites = await benchSites(statementServer.url, opts);
  } finally {
    await statementServer.stop();
  }
}

const run: BenchResults = {
  mode: values.quick ? 'quick' : 'full',
  startedAt,
  machine: {
    cores: cpus().length,
    node: process.version,
    postgres: await postgresVersion(server),
    loadAverage: { start: startLoad, end: loadavg()[0] ?? 0 },
  },
  ...sections,
  targets: judge(sections),
};
const results = base ? layInto(base, run) : run;
const dir = join(ROOT, 'bench/results');
mkdirSync(dir, { recursive: true });
// docs/performance.md shows the last full run: its table is rewritten with latest.json, so the two
// are committed together. A --quick run is a smoke test (CI runs it beside other work), so it
// writes a file of its own and leaves the committed figures alone.
writeFileSync(join(dir, values.quick ? 'latest-quick.json' : 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
if (!values.quick) writeFileSync(PERFORMANCE_DOC, renderPerformanceDoc(readFileSync(PERFORMANCE_DOC, 'utf8'), results));
process.stdout.write(`${renderReport(run)}\n`);
