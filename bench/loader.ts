import type pg from 'pg';

import type { LoadCounts, LoadRow } from '../src/db/load/load-row.js';
import { tableMeta } from '../src/db/load/table-meta.js';
import { upsertRows } from '../src/db/load/upsert.js';
import { results } from '../src/db/schema/mrp.js';
import { withTransaction } from '../src/db/transaction.js';

import { copyFromStdin } from './lib/copy-in.js';
import { copyChunks, copyStatement } from './lib/copy-text.js';
import { backendPid, measure, type Measured } from './lib/cpu.js';
import { createBenchDatabase } from './lib/database.js';
import { naiveLoad } from './lib/naive.js';
import { changedRows } from './lib/result-rows.js';
import { median, ratio, rowsPerSec } from './lib/timing.js';

/** CPU milliseconds per 100k rows: this process (encoding, the driver) and the backend. */
export interface CpuPer100k {
  client: number;
  server: number | null;
}

export interface LoaderFigures {
  rows: number;
  repetitions: number;
  copyRowsPerSec: number;
  insertRowsPerSec: number;
  updateRowsPerSec: number;
  unchangedRowsPerSec: number;
  naiveRows: number;
  naiveRowsPerSec: number;
  insertToCopy: number;
  updateToCopy: number;
  unchangedToCopy: number;
  speedupOverNaive: number;
  /** Medians over the repetitions; steadier than the wall clock on a machine doing other work. */
  cpuPer100kRows: { copy: CpuPer100k; insert: CpuPer100k; update: CpuPer100k; unchanged: CpuPer100k };
}

const RUN_ID = 1;
const COPY_TABLE = '"mrp"."results_copy_baseline"';

/**
 * Makes each timed step start from the same state: nothing dirty waiting to be written, so a
 * checkpoint triggered by the previous step's WAL is not billed to the next one.
 */
async function settle(pool: pg.Pool): Promise<void> {
  await pool.query('CHECKPOINT');
}

function expectCounts(what: string, got: LoadCounts, want: Partial<LoadCounts>): void {
  for (const [k, v] of Object.entries(want)) {
    if (got[k as keyof LoadCounts] !== v) throw new Error(`${what}: expected ${k} = ${v}, got ${JSON.stringify(got)}`);
  }
}

type Step = 'copy' | 'insert' | 'update' | 'unchanged';

/**
 * The loader against PostgreSQL's own limit, side by side in one database on one connection.
 * Each repetition runs three pairs, each a COPY into an empty copy of mrp.results (same
 * columns, defaults and indexes) right before the upsertRows step it is compared with: into
 * the empty mrp.results, again with every row changed, again with nothing changed. Every step
 * is one transaction, timed from the row objects in memory to COMMIT, each side's encoding
 * included. Ratios are taken within each pair and their median reported, so a burst of other
 * work on the machine skews a pair rather than one side of every ratio.
 */
export async function benchLoader(server: string, rows: readonly LoadRow[], opts: { repetitions: number; naiveRows: number }): Promise<LoaderFigures> {
  const db = await createBenchDatabase(server, 'loader', 1);
  try {
    const meta = tableMeta(results);
    await db.pool.query(`CREATE TABLE ${COPY_TABLE} (LIKE ${meta.qualifiedName} INCLUDING ALL)`);
    const pid = await backendPid(db.pool);
    const changed = changedRows(rows);
    const runs: Record<Step, Measured<unknown>[]> = { copy: [], insert: [], update: [], unchanged: [] };
    const ratios: Record<Exclude<Step, 'copy'>, number[]> = { insert: [], update: [], unchanged: [] };

    const copy = async (): Promise<Measured<number>> => {
      await db.pool.query(`TRUNCATE ${COPY_TABLE}`);
      await settle(db.pool);
      const m = await measure(pid, () =>
        withTransaction(db.pool, (c) => copyFromStdin(c, copyStatement(meta, COPY_TABLE), () => copyChunks(meta, rows, RUN_ID))),
      );
      if (m.value !== rows.length) throw new Error(`COPY loaded ${m.value} rows, expected ${rows.length}`);
      runs.copy.push(m);
      return m;
    };
    const upsert = async (step: Exclude<Step, 'copy'>, batch: readonly LoadRow[], runId: number, want: Partial<LoadCounts>) => {
      const baseline = await copy();
      await settle(db.pool);
      const m = await measure(pid, () => withTransaction(db.pool, (c) => upsertRows(c, results, batch, { runId })));
      expectCounts(step, m.value, want);
      runs[step].push(m);
      ratios[step].push(baseline.wallMs / m.wallMs);
    };

    for (let rep = 0; rep < opts.repetitions; rep++) {
      await db.pool.query(`TRUNCATE ${meta.qualifiedName}`);
      await upsert('insert', rows, RUN_ID, { inserted: rows.length });
      await upsert('update', changed, RUN_ID + 1, { updated: rows.length });
      await upsert('unchanged', changed, RUN_ID + 2, { unchanged: rows.length });
    }

    await db.pool.query(`TRUNCATE ${meta.qualifiedName}`);
    await settle(db.pool);
    const sample = rows.slice(0, opts.naiveRows);
    const naive = await measure(null, () => naiveLoad(db.url, sample, RUN_ID));

    const rate = (step: Step) => rowsPerSec(rows.length, median(runs[step].map((m) => m.wallMs)));
    const per100k = (ms: number) => Math.round((ms * 100_000) / rows.length);
    const cpu = (step: Step): CpuPer100k => {
      const server = runs[step].map((m) => m.serverCpuMs);
      return {
        client: per100k(median(runs[step].map((m) => m.clientCpuMs))),
        server: server.every((v): v is number => v !== null) ? per100k(median(server)) : null,
      };
    };
    const insertRowsPerSec = rate('insert');
    const naiveRowsPerSec = rowsPerSec(sample.length, naive.wallMs);
    return {
      rows: rows.length,
      repetitions: opts.repetitions,
      copyRowsPerSec: rate('copy'),
      insertRowsPerSec,
      updateRowsPerSec: rate('update'),
      unchangedRowsPerSec: rate('unchanged'),
      naiveRows: sample.length,
      naiveRowsPerSec,
      insertToCopy: ratio(median(ratios.insert), 1),
      updateToCopy: ratio(median(ratios.update), 1),
      unchangedToCopy: ratio(median(ratios.unchanged), 1),
      speedupOverNaive: ratio(insertRowsPerSec, naiveRowsPerSec),
      cpuPer100kRows: { copy: cpu('copy'), insert: cpu('insert'), update: cpu('update'), unchanged: cpu('unchanged') },
    };
  } finally {
    await db.drop();
  }
}
