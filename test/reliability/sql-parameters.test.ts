import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseBody } from '../../src/api/body.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { syncOnce } from '../helpers/sync.js';

import { scanSource, type Finding } from './helpers/sql-scan.js';

/**
 * "Nothing reaches SQL except as a parameter or a checked identifier", proved twice. Statically:
 * every place src/ hands SQL to the driver, and every SQL template in src/, uses only literals,
 * placeholders, checked identifiers and schema names (see helpers/sql-scan.ts), or is one of the
 * reviewed exceptions below, each with its reason. At run time: a sync whose upstream data is
 * laced with SQL-breaking canaries sends the database a small, fixed set of statement texts,
 * none holding a canary, while the canaries land in the tables as data.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Reviewed exceptions, by file and expression. A new dynamic SQL site fails until it is added here with its reason. */
const REVIEWED: Record<string, Record<string, string>> = {
  'src/db/load/upsert.ts': {
    'plan.text': 'built once per table by buildPlan from quoteIdent-checked Drizzle column names; rows travel as $n array parameters',
    '*': 'the builder itself: its fragments splice quoteIdent-ed names and $n placeholders only (the canary test below checks the result)',
  },
  'src/db/load/mark-deleted.ts': {
    'statement(table, meta, params.columns, present !== null)': 'built per table and scope shape from quoteIdent-checked names; values are $n parameters',
    '*': 'the builder itself, like upsert.ts',
  },
  'src/db/transaction.ts': {
    text: 'queryWithRetry passes its caller’s SQL through; every caller is checked as a sink',
  },
  'src/commands/sql.ts': {
    query: '`pitwall sql` runs the analyst’s own SQL by design; values go in as --param parameters',
  },
  'src/analytics/grant-readonly.ts': {
    statement: 'statements from readOnlyGrants(), whose templates are checked here (role via pg.escapeIdentifier)',
  },
  'src/commands/status-report.ts': {
    "tables .map((t, i) => `SELECT ${i} AS n, '${t}' AS \"table\", max(_synced_at)::text AS newest_synced_at FROM ${tableMeta(warehouseTables[t]).qualifiedName}`) .join(' UNION ALL ') + ' ORDER BY n'":
      'table names are the keys of warehouseTables (the schema), i a loop index; no value from outside',
    i: 'a loop index',
    t: 'a key of warehouseTables (the schema)',
  },
};

function sources(): Array<{ file: string; text: string }> {
  return (readdirSync(`${ROOT}src`, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f.split('\\').join('/')}`)
    .map((file) => ({ file, text: readFileSync(`${ROOT}${file}`, 'utf8') }));
}

const unreviewed = (f: Finding) => {
  const r = REVIEWED[f.file];
  return !(r && (f.text in r || (f.kind === 'interpolation' && '*' in r)));
};

describe('SQL text in src/', () => {
  it('is built only from literals, placeholders, checked identifiers and schema names, or is a reviewed exception', () => {
    const files = sources();
    expect(files.length).toBeGreaterThan(50);
    const findings = files.flatMap(({ file, text }) => scanSource(file, text)).filter(unreviewed);
    expect(findings, 'use a $n parameter, quoteIdent() or a .qualifiedName; or add a reviewed reason above').toEqual([]);
  });

  it('is caught when a value is spliced into it (the scanner itself can fail)', () => {
    const bad = scanSource(
      'x.ts',
      `const q = 'SELECT 1';
       await db.query(\`SELECT * FROM mrp.drivers WHERE last_name = '\${name}'\`);
       await db.query('SELECT * FROM t WHERE a = ' + value);
       await queryWithRetry(pool, \`DELETE FROM t WHERE id = \${id}\`, []);
       const sql = \`UPDATE t SET x = \${input}\`;`,
    );
    expect(bad.map((f) => [f.kind, f.text])).toEqual([
      ['sink', "`SELECT * FROM mrp.drivers WHERE last_name = '${name}'`"],
      ['interpolation', 'name'],
      ['sink', "'SELECT * FROM t WHERE a = ' + value"],
      ['sink', '`DELETE FROM t WHERE id = ${id}`'],
      ['interpolation', 'id'],
      ['interpolation', 'input'],
    ]);
    const good = scanSource(
      'y.ts',
      `const T = 'pitwall.rejects'; const COLS = ['a', 'b'] as const;
       await db.query('SELECT $1', [name]);
       await db.query(\`SELECT \${quoteIdent(c)}, \${COLS.join(', ')} FROM \${meta.qualifiedName} JOIN \${T} ON x = $\${i + 1}\`);`,
    );
    expect(good).toEqual([]);
  });
});

describe('SQL text at run time', () => {
  const CANARY = `Robert'); DROP TABLE mrp.results; --canary-7c1`;
  let db: TestDatabase;
  let sim: RunningSimulator;
  const texts = new Set<string>();
  let original: typeof pg.Client.prototype.query;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 13 })]);
    // Records every statement text the driver is asked to run. Observation only: each call
    // goes on to the real database unchanged.
    original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string } | undefined;
      texts.add(typeof first === 'string' ? first : (first?.text ?? ''));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
  });
  afterAll(async () => {
    if (original) pg.Client.prototype.query = original;
    await sim?.close();
    await db?.drop();
  });

  /** Puts the canary into every text field and an unmodelled field of every object of a body. */
  function lace(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(lace);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = { Canary: CANARY };
    for (const [k, v] of Object.entries(value)) out[k] = /Name|City|Desc/.test(k) && typeof v === 'string' ? `${v} ${CANARY}` : lace(v);
    return out;
  }

  it('is a small fixed set of statements that never holds data, while the data lands as data', async () => {
    const laced: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const body = lace(parseBody(await res.text()).value);
      return new Response(JSON.stringify(body), { status: res.status, headers: { 'content-type': 'application/json' } });
    };
    const summary = await syncOnce(db, sim, { fetch: laced });
    expect(summary.status).toBe('succeeded');
    const landed = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mrp.drivers WHERE last_name LIKE '%' || $1`, [CANARY]);
    expect(landed.rows[0]!.n).toBeGreaterThan(0);
    const sent = [...texts];
    expect(sent.filter((t) => t.includes('canary-7c1'))).toEqual([]);
    // Bounded by tables and statement shapes, not by rows: data would make it grow with the world.
    expect(sent.length).toBeGreaterThan(10);
    expect(sent.length).toBeLessThan(80);
  });
});
