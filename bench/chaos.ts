/**
 * `npm run chaos`: the chaos proof as a report a person can read. Starts its own simulator,
 * creates a fresh database on the server given by DATABASE_URL or TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), faults a quarter of all upstream requests with
 * every fault kind mixed, stops the first runs partway (each continued by the next), re-runs the
 * sync until it reports success, compares the warehouse with the simulator's ground truth, prints
 * the figures and drops the database.
 *
 * Options: --scale tiny|small|medium (default small), --seed N (default 31), --rate 0..1
 * (default 0.25), --max-runs N (default 30), --interruptions N (default 3). Exit code 0 when a run succeeded and the warehouse
 * matches the truth, 1 when not, 2 for bad options.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

import { migrateDatabase } from '../src/db/migrate.js';
import { createPool } from '../src/db/pool.js';
import { maskUrl } from '../src/secrets.js';
import { FAULT_KINDS } from '../src/simulator/options.js';
import { withDatabase } from '../test/helpers/db-url.js';
import { CHAOS_WEIGHTS, runChaos, type ChaosReport } from '../test/reliability/helpers/chaos.js';

const out = (line = '') => process.stdout.write(`${line}\n`);

function options() {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: 'small' },
      seed: { type: 'string', default: '31' },
      rate: { type: 'string', default: '0.25' },
      'max-runs': { type: 'string', default: '30' },
      interruptions: { type: 'string', default: '3' },
    },
  });
  const scale = values.scale as 'tiny' | 'small' | 'medium';
  const seed = Number(values.seed);
  const rate = Number(values.rate);
  const maxRuns = Number(values['max-runs']);
  const interruptions = Number(values.interruptions);
  if (!['tiny', 'small', 'medium'].includes(scale)) throw new Error('--scale must be tiny, small or medium');
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  if (!(rate >= 0 && rate <= 1)) throw new Error('--rate must be a number from 0 to 1');
  if (!(Number.isInteger(maxRuns) && maxRuns >= 1)) throw new Error('--max-runs must be a positive integer');
  if (!(Number.isInteger(interruptions) && interruptions >= 0 && interruptions < maxRuns)) throw new Error('--interruptions must be an integer from 0 to --max-runs - 1');
  return { scale, seed, rate, maxRuns, interruptions };
}

function print(r: ChaosReport, o: ReturnType<typeof options>): void {
  const faulted = Object.values(r.faults).reduce((a, b) => a + b, 0);
  const pct = (n: number, d: number) => (d === 0 ? '0.0' : ((100 * n) / d).toFixed(1));
  out();
  out(`requests:        ${r.requests} (${faulted} faulted, ${pct(faulted, r.requests)}%)`);
  out('faults by kind:');
  for (const kind of FAULT_KINDS) out(`  ${kind.padEnd(12)} ${String(r.faults[kind]).padStart(6)}   (weight ${CHAOS_WEIGHTS[kind]})`);
  out(`retries:         ${r.retries}`);
  out(`rejects:         ${r.rejects}`);
  out(`runs needed:     ${r.runsNeeded ?? `none succeeded within ${o.maxRuns}`}`);
  out(`runs left running: ${r.stuckRuns}`);
  out(`time:            ${(r.durationMs / 1000).toFixed(1)} s`);
  out('tables (live rows, warehouse / truth):');
  for (const [table, c] of Object.entries(r.warehouse)) {
    const t = r.truth[table as keyof typeof r.truth];
    out(`  ${table.padEnd(16)} ${String(c.rows).padStart(7)} / ${String(t.rows).padEnd(7)} ${c.md5 === t.md5 ? 'same' : 'DIFFERENT'}`);
  }
  out();
  out(`warehouse matches truth: ${r.matches ? 'yes' : 'no'}`);
  if (!r.matches && Object.keys(r.differences).length > 0) {
    out('first differences:');
    out(JSON.stringify(r.differences, null, 2));
  }
}

async function main(): Promise<number> {
  let o: ReturnType<typeof options>;
  try {
    o = options();
  } catch (err) {
    process.stderr.write(`chaos: ${(err as Error).message}\n`);
    return 2;
  }
  const server = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `pitwall_chaos_${randomBytes(5).toString('hex')}`;
  const admin = createPool(withDatabase(server, 'postgres'), { max: 1, applicationName: 'pitwall-chaos' });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = withDatabase(server, name);
  const pool = createPool(url, { max: 8, applicationName: 'pitwall-chaos' });
  out(`chaos: ${o.scale} world, seed ${o.seed}, ${Math.round(o.rate * 100)}% of requests faulted, the first ${o.interruptions} run(s) stopped partway, up to ${o.maxRuns} runs`);
  out(`database: ${maskUrl(url)} (created for this report, dropped after)`);
  try {
    await migrateDatabase(pool);
    const report = await runChaos({
      db: { pool, url },
      ...o,
      onRun: (n, s) =>
        out(`run ${String(n).padStart(2)}: ${s.status.padEnd(11)} ${String(s.requests).padStart(5)} requests${s.continues ? ` (continues run ${s.continues.runId})` : ''}, ${String(s.retries).padStart(4)} retries, ` +
          `${s.scopes.failed} failed and ${s.scopes.invalid} RequestValid-0 scopes, ${(s.durationMs / 1000).toFixed(1)} s`),
    });
    print(report, o);
    return report.matches && report.runsNeeded !== null && report.stuckRuns === 0 ? 0 : 1;
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

process.exitCode = await main();
