/**
 * `npm run bench:profile [-- --scale medium]`: one first sync of a world, as the bench's
 * end-to-end section runs it, for profiling (docs/decisions.md, "The cuts, each measured side by side"). Prints
 * the CPU of pitwall, the simulator and PostgreSQL over the sync, the sync's window on the
 * monotonic clock (to cut a `perf record -k CLOCK_MONOTONIC` of this process down to the sync),
 * and, where the server loads pg_stat_statements, the statements the sync ran, most expensive
 * first. The database is made for the run and dropped after it, so its statistics are the sync's
 * (and its migration's) alone: nothing on the server is reset.
 */
import { parseArgs } from 'node:util';

import type pg from 'pg';

import { createSilentLogger } from '../src/log.js';
import type { Scale } from '../src/simulator/world/types.js';
import { runSync } from '../src/sync/run.js';

import { cpuSplit } from './lib/cpu.js';
import { serverUrl } from './lib/database.js';
import { E2E_CONCURRENCY, E2E_LATENCY_MS, openSyncSetup } from './lib/sync-setup.js';

const { values } = parseArgs({ options: { scale: { type: 'string', default: 'medium' }, statements: { type: 'string', default: '20' } } });
const { db, sim, pool, config, close } = await openSyncSetup(serverUrl(process.env), 'profile', {
  scale: values.scale as Scale,
  latencyMs: E2E_LATENCY_MS,
  concurrency: E2E_CONCURRENCY,
});
try {
  const cpu = await cpuSplit(sim.pid, pool);
  const window = [process.hrtime.bigint()];
  const started = performance.now();
  const summary = await runSync({ pool, config, logger: createSilentLogger() });
  const wallMs = Math.round(performance.now() - started);
  window.push(process.hrtime.bigint());
  const cpuMs = await cpu();
  process.stdout.write(`${JSON.stringify({ status: summary.status, requests: summary.requests, wallMs, cpuMs, monotonicWindowNs: window.map(String) })}\n`);
  await printStatements(db.pool, Number(values.statements));
} finally {
  await close();
}

/** The sync's statements by total time (execution and planning), from pg_stat_statements if the server has it. */
async function printStatements(db: pg.Pool, limit: number): Promise<void> {
  const preloaded = await db.query<{ on: boolean }>(`SELECT current_setting('shared_preload_libraries') ~ 'pg_stat_statements' AS on`);
  if (!preloaded.rows[0]?.on) {
    process.stdout.write('pg_stat_statements is not in shared_preload_libraries on this server: no statement figures\n');
    return;
  }
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } catch (err) {
    process.stdout.write(`pg_stat_statements could not be installed in the profile's database (${String(err)}): no statement figures\n`);
    return;
  }
  const { rows } = await db.query<{ calls: string; exec_ms: number; plan_ms: number; rows: string; query: string }>(
    `SELECT calls, round(total_exec_time)::int AS exec_ms, round(total_plan_time)::int AS plan_ms, rows,
            left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time + total_plan_time DESC
      LIMIT $1`,
    [limit],
  );
  process.stdout.write('   calls  exec ms  plan ms      rows  statement\n');
  for (const r of rows) {
    process.stdout.write(`${r.calls.padStart(8)} ${String(r.exec_ms).padStart(8)} ${String(r.plan_ms).padStart(8)} ${r.rows.padStart(9)}  ${r.query}\n`);
  }
}
